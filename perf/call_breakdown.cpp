// Where the time of one small reduction goes: the pieces of a native-exchange call
// (reducer<double, plus, best, native>), each timed alone on the same data, against the whole
// call and the baselines.
//
//   mpirun -n P call_breakdown [--n N] [--calls C] [--rounds R]
//
// Pieces, per call on this rank: `kernel` (the local tree kernel over the rank's maximal
// nodes), `record_write` (this rank's frontier into its record), `merge` (one exact merge of
// two neighbouring blocks' records, what the MPI operation runs once per rank at p = 2; the
// halves of the range at p = 1), `read_result`, `mpi_record` (MPI_Allreduce of one record-sized
// element under a non-commutative operation that does nothing: the transport and MPI's own
// work), `mpi_double` (MPI_Allreduce of one double, MPI_SUM: the floor), `fast` (fast-math sum +
// that MPI_Allreduce: the irreproducible baseline), `call` (the reducer's all_reduce) and
// `automatic` (all_reduce of a reducer<double>, the exchange automatic chose).
// `rest` = call - (kernel + record_write + merge at p > 1 + read_result + mpi_record): the reducer's own
// checks, plan lookup and counters; `beyond_kernel` = automatic - kernel. Median over rounds of the
// slowest rank's ns per call.

#include "baselines.hpp"
#include "bench_util.hpp"
#include "call_timer.hpp"

#include "treefold/exchange/detail/records.hpp"
#include "treefold/layout/detail/routes.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/index_tree/node.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/program_options.hpp>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace mpi = boost::mpi;
namespace po = boost::program_options;
using namespace treefold;

namespace {

void do_nothing(void*, void*, int*, MPI_Datatype*) {}

volatile double sink = 0; // keeps the timed results alive

} // namespace

int main(int argc, char** argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    po::options_description opts("call_breakdown options");
    std::uint64_t n = 460;
    std::size_t calls = 20000;
    std::size_t rounds = 9;
    opts.add_options()("help", "this text")("n", po::value(&n), "global number of doubles (default 460)")(
        "calls", po::value(&calls), "calls per piece and round (default 20000)")(
        "rounds", po::value(&rounds), "interleaved rounds (default 9)");
    po::variables_map vm;
    try {
        po::store(po::parse_command_line(argc, argv, opts), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        if (world.rank() == 0) {
            std::fprintf(stderr, "call_breakdown: %s\n", e.what());
        }
        return 2;
    }
    if (vm.count("help") != 0) {
        if (world.rank() == 0) {
            std::printf("%s", (std::stringstream() << opts).str().c_str());
        }
        return 0;
    }
    const int p = world.size();
    if (n < static_cast<std::uint64_t>(2 * p) || calls == 0 || rounds == 0) {
        if (world.rank() == 0) {
            std::fprintf(stderr, "call_breakdown: need --n >= 2p, --calls and --rounds > 0\n");
        }
        return 2;
    }

    const auto counts = layout::even_upper(n, p);
    const auto layout = layout::block_layout::from_counts(counts);
    const auto& mine = layout.block_of(world.rank());
    std::vector<double> local(mine.count);
    for (std::size_t i = 0; i < local.size(); ++i) {
        local[i] = 1.0 / static_cast<double>(mine.start + i + 1);
    }
    const auto nodes = layout::block_nodes(layout, world.rank());
    ops::plus op;

    // The merge's operands: two neighbouring blocks' records (this rank's and the next one's;
    // at p = 1 the two halves of the range), each with its frontier's values.
    const std::uint64_t left_end = p > 1 ? layout.block_of(layout.index_order()[1]).start : n / 2;
    frontier_record<double> record(n, exchange::native_plan<double>::record_capacity(p > 1 ? layout : layout::block_layout::from_counts(std::vector<index_tree::index_t>{left_end, n - left_end})));
    auto frontier_values = [&](std::uint64_t s, std::uint64_t e) {
        std::vector<double> values;
        index_tree::for_each_maximal_node(s, e, n, [&](index_tree::node v) { values.push_back(1.0 / static_cast<double>(v.x + 1)); });
        return values;
    };
    const auto left_values = frontier_values(0, left_end);
    const auto right_values = frontier_values(left_end, n);
    std::vector<char> left(record.bytes()), right(record.bytes()), work(record.bytes()), done(record.bytes());
    record.write(left.data(), 0, left_end, left_values.data());
    record.write(right.data(), left_end, n, right_values.data());
    {
        std::exception_ptr error;
        std::copy(right.begin(), right.end(), work.begin());
        record.merge(left.data(), work.data(), op, world.rank(), error);
        double merged = 0;
        if (error || record.read_result(work.data(), merged)) { // a failure: nothing worth timing
            std::fprintf(stderr, "call_breakdown: the merge of the two records failed\n");
            return 1;
        }
        done = work;
    }

    MPI_Datatype record_type = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(static_cast<int>(record.bytes()), MPI_BYTE, &record_type);
    MPI_Type_commit(&record_type);
    MPI_Op noop = MPI_OP_NULL;
    MPI_Op_create(&do_nothing, 0, &noop);
    std::vector<char> send(record.bytes()), recv(record.bytes());

    reducer<double, ops::plus, kernel::best, exchange::native> call(world, layout);
    reducer<double> chosen(world, layout);
    std::vector<double> node_values(nodes.size());

    const std::vector<std::pair<std::string, std::function<void()>>> pieces{
        {"kernel",
         [&] {
             for (std::size_t i = 0; i < nodes.size(); ++i) {
                 node_values[i] = kernel::best::reduce_node(local.data() + (nodes[i].x - mine.start),
                                                            index_tree::cover_size(nodes[i], n), op);
             }
             sink = node_values[0];
         }},
        {"record_write", [&] { record.write(send.data(), mine.start, mine.start + mine.count, node_values.data()); }},
        {"merge",
         [&] {
             std::exception_ptr error;
             std::copy(right.begin(), right.end(), work.begin());
             record.merge(left.data(), work.data(), op, world.rank(), error);
         }},
        {"read_result",
         [&] {
             double value = 0;
             (void)record.read_result(done.data(), value);
             sink = value;
         }},
        {"mpi_record", [&] { MPI_Allreduce(send.data(), recv.data(), 1, record_type, noop, world); }},
        {"mpi_double", [&] { sink = perf::mpi_sum(sink, world); }},
        {"fast", [&] { sink = perf::mpi_sum(perf::fastmath_sum(local.data(), local.size()), world); }},
        {"call", [&] { sink = call.all_reduce(std::span<const double>(local)); }},
        {"automatic", [&] { sink = chosen.all_reduce(std::span<const double>(local)); }},
    };
    std::map<std::string, std::vector<double>> times;
    for (std::size_t r = 0; r < rounds; ++r) {
        for (const auto& [name, run] : pieces) {
            times[name].push_back(1e9 * perf::slowest_seconds_per_call(world, calls, run));
        }
    }
    if (world.rank() == 0) {
        std::map<std::string, double> median;
        for (const auto& [name, v] : times) {
            median[name] = perf::quantile(v, 0.5);
        }
        // At p = 1 the call merges nothing (the rank's record is the whole range).
        const double merges = p > 1 ? median["merge"] : 0.0;
        const double rest = median["call"] - median["kernel"] - median["record_write"] - merges -
                            median["read_result"] - median["mpi_record"];
        std::printf("# call_breakdown n=%llu p=%d local=%zu nodes=%zu record_bytes=%zu calls=%zu rounds=%zu %s%s\n",
                    static_cast<unsigned long long>(n), p, local.size(), nodes.size(), record.bytes(), calls, rounds,
                    perf::machine().c_str(), perf::oversubscribed(p) ? " (oversubscribed)" : "");
        for (const auto& [name, run] : pieces) {
            std::printf("%-12s %9.1f ns  (min %.1f, max %.1f)\n", name.c_str(), median[name],
                        *std::min_element(times[name].begin(), times[name].end()),
                        *std::max_element(times[name].begin(), times[name].end()));
        }
        std::printf("%-12s %9.1f ns  (call - kernel - record_write - merge at p > 1 - read_result - mpi_record)\n", "rest", rest);
        std::printf("%-12s %9.1f ns  (automatic - kernel; automatic chose %s, %.2fx fast)\n", "beyond_kernel",
                    median["automatic"] - median["kernel"], std::string(chosen.exchange_used()).c_str(),
                    median["automatic"] / median["fast"]);
    }
    MPI_Op_free(&noop);
    MPI_Type_free(&record_type);
    return 0;
}
