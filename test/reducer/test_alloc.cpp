// A planned reducer allocates nothing per call after the first (trivially copyable T), through
// every exchange tested here (the tree with MPI_Bcast and the scheduled ones included) and the
// nonblocking calls. This executable replaces global operator new to count allocations.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "treefold/exchange/modelled_schedules.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/layout/distribution.hpp"
#include "treefold/reducer.hpp"

#include <array>
#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

namespace {
std::atomic<long> allocations{0};
}

void* operator new(std::size_t size)
{
    ++allocations;
    if (void* p = std::malloc(size == 0 ? 1 : size)) {
        return p;
    }
    throw std::bad_alloc();
}
// Not inlined: g++ 12 otherwise sees free() meet a new-expression's pointer and warns
// (-Wmismatched-new-delete), though this pair matches.
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace treefold;

namespace {

template <class E>
void no_allocation_after_first_call()
{
    const auto& w = testing::world();
    for (const std::uint64_t n : {1ULL, 1000ULL, 100003ULL}) {
        const auto l = testing::random_layout(n + 5, n, w.size());
        const auto xs = testing::mixed_values(n, n, false);
        const auto b = l.block_of(w.rank());
        const std::span<const double> local(xs.data() + b.start, b.count);
        reducer<double, std::plus<double>, kernel::scalar, E> r(w, l);
        const double first = r.all_reduce(local);
        (void)r.reduce(local, 0);
        const long before = allocations.load();
        const double second = r.all_reduce(local);
        (void)r.reduce(local, w.size() - 1);
        const long during = allocations.load() - before;
        BOOST_CHECK_EQUAL(during, 0);
        BOOST_CHECK_EQUAL(testing::bits_of(first), testing::bits_of(second));
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(direct_exchange_allocates_nothing_per_call) { no_allocation_after_first_call<exchange::direct>(); }
BOOST_AUTO_TEST_CASE(tree_exchange_allocates_nothing_per_call) { no_allocation_after_first_call<exchange::tree<>>(); }
BOOST_AUTO_TEST_CASE(dual_tree_allocates_nothing_per_call)
{
    no_allocation_after_first_call<exchange::tree<topology::m_ary<4>, exchange::result_broadcast::mpi>>();
}
BOOST_AUTO_TEST_CASE(scheduled_exchanges_allocate_nothing_per_call)
{
    no_allocation_after_first_call<exchange::scheduled<exchange::schedules::recursive_doubling>>();
    no_allocation_after_first_call<exchange::scheduled<exchange::schedules::best>>();
}
BOOST_AUTO_TEST_CASE(native_exchange_allocates_nothing_per_call) { no_allocation_after_first_call<exchange::native>(); }
BOOST_AUTO_TEST_CASE(automatic_exchange_allocates_nothing_per_call)
{
    no_allocation_after_first_call<exchange::automatic>();
}
BOOST_AUTO_TEST_CASE(nonblocking_calls_allocate_nothing_after_the_first)
{
    const auto& w = testing::world();
    const std::uint64_t n = 5000;
    const auto l = testing::random_layout(n + 5, n, w.size());
    const auto xs = testing::mixed_values(n, n, false);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start, b.count);
    reducer<double, std::plus<double>, kernel::scalar, exchange::direct> r(w, l);
    const double first = r.iall_reduce(local).wait();
    (void)r.ireduce(local, 0).wait();
    const long before = allocations.load();
    const double second = r.iall_reduce(local).wait();
    (void)r.ireduce(local, w.size() - 1).wait();
    BOOST_CHECK_EQUAL(allocations.load() - before, 0);
    BOOST_CHECK_EQUAL(testing::bits_of(first), testing::bits_of(second));
}

// Rows of a width known at compile time (std::array under ops::columnwise, the raw-bytes
// form of row_reducer) allocate nothing per call either; row_reducer's run-time-width rows
// travel through Boost.Serialization, whose archives allocate per message, so it is not
// listed here (doc/guide.md says which to choose).
BOOST_AUTO_TEST_CASE(array_rows_allocate_nothing_per_call)
{
    using row3 = std::array<double, 3>;
    const auto& w = testing::world();
    const std::uint64_t n = 1000;
    const auto l = testing::random_layout(n + 9, n, w.size());
    const auto xs = testing::mixed_values(n + 1, 3 * n, false);
    const auto b = l.block_of(w.rank());
    std::vector<row3> local(b.count);
    for (std::size_t i = 0; i < local.size(); ++i) {
        for (std::size_t c = 0; c < 3; ++c) {
            local[i][c] = xs[3 * (b.start + i) + c];
        }
    }
    reducer<row3, ops::columnwise<ops::plus>> r(w, l);
    const row3 first = r.all_reduce(local);
    (void)r.reduce(local, 0);
    const long before = allocations.load();
    const row3 second = r.all_reduce(local);
    (void)r.reduce(local, w.size() - 1);
    BOOST_CHECK_EQUAL(allocations.load() - before, 0);
    BOOST_CHECK(first == second);
}
