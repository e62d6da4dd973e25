// A planned reducer allocates nothing per call after the first (trivially copyable T), through
// every exchange tested here (the tree with MPI_Bcast and the scheduled ones included), the
// nonblocking calls and the threaded ones (set_threads); nor does a row_reducer's buffer forms
// (run-time-width rows, direct and tree). This executable replaces global operator new to
// count allocations.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "treefold/model/schedules.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"
#include "treefold/row_reducer.hpp"

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
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

/// A reducer (Kernel, Exchange) over a random layout of n values, after `setup(r)`: the second
/// `round(r, local, root)` (returning the all_reduce value) allocates nothing and gives the
/// first's bits.
template <class Kernel, class Exchange = exchange::direct, class Setup, class Round>
void second_round_allocates_nothing(std::uint64_t n, Setup setup, Round round)
{
    const auto& w = testing::world();
    const auto l = testing::random_layout(n + 5, n, w.size());
    const auto xs = testing::mixed_values(n, n, false);
    const auto b = l.block_of(w.rank());
    const std::span<const double> local(xs.data() + b.start, b.count);
    reducer<double, std::plus<double>, Kernel, Exchange> r(w, l);
    setup(r);
    const double first = round(r, local, 0);
    const long before = allocations.load();
    const double second = round(r, local, w.size() - 1);
    BOOST_CHECK_EQUAL(allocations.load() - before, 0);
    BOOST_CHECK_EQUAL(testing::bits_of(first), testing::bits_of(second));
}

/// One round of the blocking calls: all_reduce (its value returned), then reduce to `root`.
constexpr auto blocking_round = [](auto& r, auto local, int root) {
    const double v = r.all_reduce(local);
    (void)r.reduce(local, root);
    return v;
};

/// The blocking calls through exchange E allocate nothing after the first round, for n = 1,
/// 1000 and 100003.
template <class E>
void no_allocation_after_first_call()
{
    for (const std::uint64_t n : {1ULL, 1000ULL, 100003ULL}) {
        second_round_allocates_nothing<kernel::scalar, E>(n, [](auto&) {}, blocking_round);
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
    no_allocation_after_first_call<exchange::scheduled<model::schedules::best>>();
}
BOOST_AUTO_TEST_CASE(native_exchange_allocates_nothing_per_call) { no_allocation_after_first_call<exchange::native>(); }
BOOST_AUTO_TEST_CASE(automatic_exchange_allocates_nothing_per_call)
{
    no_allocation_after_first_call<exchange::automatic>();
}
BOOST_AUTO_TEST_CASE(nonblocking_calls_allocate_nothing_after_the_first)
{
    second_round_allocates_nothing<kernel::scalar>(5000, [](auto&) {}, [](auto& r, auto local, int root) {
        const double v = r.iall_reduce(local).wait();
        (void)r.ireduce(local, root).wait();
        return v;
    });
}
BOOST_AUTO_TEST_CASE(threaded_calls_allocate_nothing_after_the_first)
{
    // set_threads: the pool is made once, the split kernel's frontiers are kept per calling thread.
    second_round_allocates_nothing<kernel::best>(100003, [](auto& r) { r.set_threads(4, 100); }, blocking_round);
}

// Rows of a width known at compile time (std::array under ops::columnwise) allocate nothing
// per call either; run-time-width rows (row_reducer) are below.
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

namespace {

/// row_reducer's result-buffer forms allocate nothing after the first call (rows live in the
/// reducer's arena and travel through their own codec), for widths 1, 3 and 17, on a random
/// layout (empty blocks included), and give the first call's bits.
template <class E>
void rows_allocate_nothing_per_call()
{
    const auto& w = testing::world();
    const std::uint64_t n = 1000;
    for (const std::size_t k : {1, 3, 17}) {
        const auto l = testing::random_layout(n + k, n, w.size());
        const auto xs = testing::mixed_values(n + k, n * k, false);
        const auto b = l.block_of(w.rank());
        const std::span<const double> local(xs.data() + b.start * k, b.count * k);
        row_reducer<double, ops::plus, E> r(w, l, k);
        std::vector<double> first(k), at_first_root(k), second(k), at_last_root(k);
        r.all_reduce(local, first);
        r.reduce(local, 0, at_first_root);
        const long before = allocations.load();
        r.all_reduce(local, second);
        r.reduce(local, w.size() - 1, at_last_root);
        BOOST_CHECK_MESSAGE(allocations.load() == before, "k=" << k << ": " << allocations.load() - before);
        auto same = [k](const std::vector<double>& a, const std::vector<double>& c) {
            return std::memcmp(a.data(), c.data(), k * sizeof(double)) == 0;
        };
        BOOST_CHECK(same(first, second));
        BOOST_CHECK(w.rank() != 0 || same(first, at_first_root));
        BOOST_CHECK(w.rank() != w.size() - 1 || same(first, at_last_root));
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(runtime_rows_direct_allocate_nothing_per_call) { rows_allocate_nothing_per_call<exchange::direct>(); }
BOOST_AUTO_TEST_CASE(runtime_rows_tree_allocate_nothing_per_call) { rows_allocate_nothing_per_call<exchange::tree<>>(); }
