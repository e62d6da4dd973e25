// The thread-safety contract (doc/design.md, "Guarantees and limits"): one reducer per
// thread is safe. Three threads of each rank run calls at the same time, each on its own
// reducer (direct, binomial tree, recursive-doubling schedule; the first two with threads
// from one shared pool), and every result must have the oracle's bits. Its own main: MPI must be initialised with MPI_THREAD_MULTIPLE.
// Exit code 77 (ctest: skipped) if the MPI library does not provide it.
#include "support/oracle.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/exchange/registry.hpp"
#include "treefold/reducer.hpp"

#include <boost/mpi.hpp>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

using namespace treefold;

namespace {

std::uint64_t bits(double v)
{
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

/// `calls` all_reduce and reduce calls on `r`, with data that depends on the thread and the
/// call; counts results that differ from the oracle.
template <class R>
void run(R& r, int thread, int calls, std::atomic<int>& wrong)
{
    const auto& l = r.layout();
    const int me = r.communicator().rank();
    const auto b = l.block_of(me);
    std::vector<double> xs(l.size());
    for (int c = 0; c < calls; ++c) {
        for (std::size_t i = 0; i < xs.size(); ++i) {
            xs[i] = 1.0 / static_cast<double>(1 + i + static_cast<std::size_t>(thread * 7 + c));
        }
        const double want = testing::oracle_reduce(xs, std::plus<double>());
        const std::span<const double> mine(xs.data() + b.start, b.count);
        if (bits(r.all_reduce(mine)) != bits(want)) {
            ++wrong;
        }
        const int root = c % r.communicator().size();
        const auto at_root = r.reduce(mine, root);
        if (at_root.has_value() != (me == root) || (at_root && bits(*at_root) != bits(want))) {
            ++wrong;
        }
    }
}

} // namespace

int main(int argc, char** argv)
{
    boost::mpi::environment env(argc, argv, boost::mpi::threading::multiple);
    if (env.thread_level() < boost::mpi::threading::multiple) {
        std::puts("test_threads: the MPI library does not provide MPI_THREAD_MULTIPLE: skipped");
        return 77;
    }
    const boost::mpi::communicator world;
    const int p = world.size();
    // Construction is collective: all reducers are made here, in the same order on every rank.
    const auto l = layout::block_layout::from_counts(std::vector<std::uint64_t>(static_cast<std::size_t>(p), 37));
    reducer<double, std::plus<double>, kernel::best, exchange::direct> a(world, l);
    reducer<double, std::plus<double>, kernel::best, exchange::tree<>> b(world, l);
    reducer<double, std::plus<double>, kernel::best, exchange::scheduled<>> c(world, l);
    // a and b also compute their blocks on the threads of one shared pool (set_threads),
    // whose runs the two calling threads take in turn; c stays on its own thread.
    thread_pool pool(3);
    a.set_threads(pool, 4);
    b.set_threads(pool, 4);
    std::atomic<int> wrong{0};
    const int calls = 300;
    {
        std::jthread ta([&] { run(a, 0, calls, wrong); });
        std::jthread tb([&] { run(b, 1, calls, wrong); });
        std::jthread tc([&] { run(c, 2, calls, wrong); });
    }
    const int total = boost::mpi::all_reduce(world, wrong.load(), std::plus<int>());
    if (world.rank() == 0) {
        std::printf("test_threads: %d ranks, 3 threads x %d calls, %d wrong results\n", p, 2 * calls, total);
    }
    return total == 0 ? 0 : 1;
}
