// The message counts computed from the plan alone equal what the reducer counts when it runs.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "treefold/rma/one_sided.hpp"
#include "treefold/model/schedules.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/model/message_count.hpp"
#include "treefold/model/plan_messages.hpp"
#include "treefold/exchange/registry.hpp"
#include "treefold/reducer.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mpi = boost::mpi;
using namespace treefold;
using layout::index_t;

// The replay must use the exchange's own buffering rules.
static_assert(plan::direct_buffering{}.values_per_message == exchange::direct::buffer_values);
static_assert(plan::direct_buffering{}.flush_before_elements == exchange::direct::flush_before_elements);

namespace {

struct measured {
    std::uint64_t all_reduce = 0;   ///< total over ranks
    std::uint64_t reduce = 0;       ///< total over ranks, reduce to the finisher
    std::uint64_t reduce_root0 = 0; ///< total over ranks, reduce to rank 0
    std::uint64_t mine = 0;         ///< this rank's share of `reduce`
};

template <class Exchange>
measured run_reducer(const mpi::communicator& comm, const layout::block_layout& l, int finisher)
{
    reducer<double, std::plus<double>, kernel::scalar, Exchange> r(comm, l);
    const std::vector<double> local(r.local_count(), 1.0);
    measured m;
    const double total = r.all_reduce(local);
    BOOST_CHECK_EQUAL(total, static_cast<double>(l.size())); // sums of ones are exact
    m.all_reduce = mpi::all_reduce(comm, r.last_counters().messages, std::plus<std::uint64_t>());
    (void)r.reduce(local, finisher);
    m.mine = r.last_counters().messages;
    m.reduce = mpi::all_reduce(comm, m.mine, std::plus<std::uint64_t>());
    (void)r.reduce(local, 0);
    m.reduce_root0 = mpi::all_reduce(comm, r.last_counters().messages, std::plus<std::uint64_t>());
    return m;
}

void check_layout(const mpi::communicator& comm, const layout::block_layout& l, const std::string& what)
{
    const int p = comm.size();
    const std::string where = what + " N = " + std::to_string(l.size()) + " p = " + std::to_string(p);

    // direct: the owner of index 0 finishes; every rank's own count must match its replay.
    const int direct_finisher = l.owner(0);
    const auto want_direct = model::direct_call_messages(l);
    const auto got_direct = run_reducer<exchange::direct>(comm, l, direct_finisher);
    BOOST_CHECK_MESSAGE(got_direct.all_reduce == want_direct.all_reduce,
                        where << " direct all_reduce: measured " << got_direct.all_reduce << ", planned "
                              << want_direct.all_reduce);
    // reduce sends what all_reduce sends (the exchange, then the broadcast), whatever the root.
    BOOST_CHECK_MESSAGE(got_direct.reduce == want_direct.all_reduce,
                        where << " direct reduce: measured " << got_direct.reduce << ", planned " << want_direct.all_reduce);
    const std::uint64_t mine_planned =
        model::direct_rank_messages(l, comm.rank()) + testing::broadcast_sends(p, comm.rank(), direct_finisher);
    BOOST_CHECK_MESSAGE(got_direct.mine == mine_planned, where << " direct rank " << comm.rank() << ": measured "
                                                               << got_direct.mine << ", planned " << mine_planned);
    BOOST_CHECK_EQUAL(got_direct.reduce_root0, want_direct.all_reduce);
    // Buffering can only merge messages, never add any.
    BOOST_CHECK_LE(want_direct.reduce, want_direct.unbuffered);
    BOOST_CHECK_EQUAL(want_direct.unbuffered, model::direct_messages(l) + model::empty_block_reports(l));

    // tree<binomial>: root position 0, the first rank in index order.
    const int tree_finisher = l.index_order()[0];
    const auto want_tree = model::tree_call_messages(l);
    const auto got_tree = run_reducer<exchange::tree<>>(comm, l, tree_finisher);
    BOOST_CHECK_MESSAGE(got_tree.all_reduce == want_tree.all_reduce,
                        where << " tree all_reduce: measured " << got_tree.all_reduce << ", planned "
                              << want_tree.all_reduce);
    BOOST_CHECK_MESSAGE(got_tree.reduce == want_tree.all_reduce,
                        where << " tree reduce: measured " << got_tree.reduce << ", planned " << want_tree.all_reduce);
    BOOST_CHECK_EQUAL(got_tree.reduce_root0, want_tree.all_reduce);

    // tree<4-ary> with MPI_Bcast: the tree's p - 1 messages to the root and nothing else of
    // treefold's, in reduce too; the result goes out in one MPI_Bcast (a collective).
    const int dual_finisher = l.index_order()[0];
    const auto got_dual = run_reducer<exchange::tree<topology::m_ary<4>, exchange::result_broadcast::mpi>>(comm, l, dual_finisher);
    BOOST_CHECK_MESSAGE(got_dual.all_reduce == model::tree_exchange_messages(l) && got_dual.reduce == want_tree.reduce,
                        where << " dual4: measured " << got_dual.reduce << " / " << got_dual.all_reduce << ", planned "
                              << want_tree.reduce << " / " << model::tree_exchange_messages(l));

    // one_sided: the direct routes, one queue message per outbound root, same finisher.
    const auto want_queue = rma::one_sided_call_messages(l);
    const auto got_queue = run_reducer<rma::one_sided>(comm, l, direct_finisher);
    BOOST_CHECK_MESSAGE(got_queue.all_reduce == want_queue.all_reduce && got_queue.reduce == want_queue.all_reduce,
                        where << " one_sided: measured " << got_queue.reduce << " / " << got_queue.all_reduce
                              << ", planned " << want_queue.all_reduce);

    // scheduled<best>: the schedule's own count; the result is everywhere, so no broadcast
    // and no forwarding to any root.
    const auto want_schedule = model::schedules::best::make(p).messages(p);
    const auto got_schedule = run_reducer<exchange::scheduled<model::schedules::best>>(comm, l, 0);
    BOOST_CHECK_MESSAGE(got_schedule.all_reduce == want_schedule && got_schedule.reduce == want_schedule &&
                            got_schedule.reduce_root0 == want_schedule,
                        where << " schedule_best: measured " << got_schedule.reduce << " / " << got_schedule.all_reduce
                              << ", schedule says " << want_schedule);
}

std::vector<index_t> sizes_for(int p)
{
    const auto up = static_cast<index_t>(p);
    // N < p (empty blocks), N = p, just above, sizes whose blocks straddle many levels, and
    // sizes with nodes above the 64-element flush threshold.
    std::vector<index_t> sizes{1, 2, up + 1, 3 * up + 2, 65, 100, 1000, 4099, 1U << 12, 70001};
    if (p > 2) {
        sizes.push_back(up - 1);
    }
    return sizes;
}

} // namespace

BOOST_AUTO_TEST_CASE(planned_counts_equal_measured_for_every_distribution)
{
    const auto& comm = testing::world();
    for (const char* name : {"even-lower", "even-upper", "power-of-two", "aligned:0.5", "aligned:0", "aligned:2"}) {
        const auto d = layout::distribution::parse(name);
        for (const index_t n : sizes_for(comm.size())) {
            check_layout(comm, layout::block_layout::from_counts(d.counts(n, comm.size())), name);
        }
    }
}

BOOST_AUTO_TEST_CASE(planned_counts_equal_measured_for_permuted_layouts_with_empty_blocks)
{
    const auto& comm = testing::world();
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        for (const index_t n : {index_t{3}, index_t{97}, index_t{5000}, index_t{65537}}) {
            check_layout(comm, testing::random_layout(seed * 7919 + n, n, comm.size()), "random layout");
        }
    }
}

// A single process checks the plan's counts on their own: invariants that need no ranks.
BOOST_AUTO_TEST_CASE(plan_counts_without_ranks)
{
    for (const int p : {1, 2, 3, 17, 256}) {
        for (const index_t n : {index_t{1}, index_t{7}, index_t{460}, index_t{239763}, index_t{1} << 21}) {
            for (const char* name : {"even-lower", "even-upper", "power-of-two", "aligned:0.5"}) {
                const auto l = layout::block_layout::from_counts(layout::distribution::parse(name).counts(n, p));
                const auto direct = model::direct_call_messages(l);
                const auto tree = model::tree_call_messages(l);
                BOOST_CHECK_LE(direct.reduce, direct.unbuffered);
                BOOST_CHECK_EQUAL(tree.reduce, static_cast<std::uint64_t>(p - 1));
                BOOST_CHECK_EQUAL(tree.all_reduce, static_cast<std::uint64_t>(2 * (p - 1)));
                BOOST_CHECK_EQUAL(direct.all_reduce, direct.reduce + static_cast<std::uint64_t>(p - 1));
            }
        }
    }
    // Every block aligned to a power of two: each rank but the first sends one root.
    const auto l = layout::block_layout::from_counts(layout::distribution::parse("even-lower").counts(1U << 21, 256));
    BOOST_CHECK_EQUAL(model::direct_exchange_messages(l), 255U);
    BOOST_CHECK(!model::message_bound(256, 256));
    BOOST_CHECK_CLOSE(*model::message_bound(513, 256), 255.0 * 2.0, 1e-12);
}
