// Threads inside a rank (kernel/threads.hpp): kernel::split over t = 1..8 threads returns its
// inner kernel's bits for every kernel this CPU runs (scalar, simd<sse2|avx2|avx512f>, best),
// at lengths that cut into uneven pieces; through the reducer, the same bits as the oracle for
// every t x p = 1..world size x layouts with empty blocks; a throwing operator is reported as
// without threads; the pool runs every task exactly once, also when shared by threads.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/error.hpp"
#include "treefold/io/values_file.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/simd.hpp"
#include "treefold/kernel/threads.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/exchange/registry.hpp"
#include "treefold/reducer.hpp"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using namespace treefold;
using testing::world;

namespace {

/// Calls f(name, std::type_identity<Kernel>{}) for every kernel this CPU can run.
template <class F>
void for_each_kernel(F&& f)
{
    f("scalar", std::type_identity<kernel::scalar>{});
    f("sse2", std::type_identity<kernel::simd<xsimd::sse2>>{});
    if (kernel::simd_supported("avx2")) {
        f("avx2", std::type_identity<kernel::simd<xsimd::avx2>>{});
    }
    if (kernel::simd_supported("avx512f")) {
        f("avx512f", std::type_identity<kernel::simd<xsimd::avx512f>>{});
    }
    f("best", std::type_identity<kernel::best>{});
}

/// An executor of the test's own: every task on the calling thread, last index first (an
/// order no pool uses), claiming `threads` threads.
struct backwards_executor {
    std::size_t threads = 1;
    std::size_t concurrency() const { return threads; }
    void run(std::size_t n, const task_ref& task) const
    {
        for (std::size_t i = n; i-- > 0;) {
            task(i);
        }
    }
};

static_assert(task_executor<thread_pool>);
static_assert(task_executor<backwards_executor>);
static_assert(!task_executor<int>);

/// One thread_pool per thread count 1..8, made once for the whole suite (shared by reducers).
thread_pool& pool_of(std::size_t t)
{
    static std::vector<std::unique_ptr<thread_pool>> pools = [] {
        std::vector<std::unique_ptr<thread_pool>> v;
        for (std::size_t i = 1; i <= 8; ++i) {
            v.push_back(std::make_unique<thread_pool>(i));
        }
        return v;
    }();
    return *pools.at(t - 1);
}

struct op_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

} // namespace

BOOST_AUTO_TEST_SUITE(thread_split)

// The split kernel alone: every kernel, t = 1..8 (the pool and the backwards executor), pieces
// down to 1 and 7 elements, lengths around powers of two. Each rank takes every p-th length.
BOOST_AUTO_TEST_CASE(same_bits_as_inner_kernel)
{
    const std::vector<std::uint64_t> lengths = {1, 2, 3, 5, 8, 16, 17, 63, 64, 65, 100, 255, 256, 257,
                                                1000, 1024, 4099, 65543, 300001};
    for (std::size_t li = 0; li < lengths.size(); ++li) {
        if (!testing::dealt_here(li)) {
            continue;
        }
        const std::uint64_t n = lengths[li];
        const auto xs = testing::mixed_values(n * 3 + 1, n, false); // no NaN: compared as bits
        for_each_kernel([&]<class K>(const char* name, std::type_identity<K>) {
            ops::plus op;
            const auto want = testing::bits_of(K::reduce_node(xs.data(), n, op));
            BOOST_REQUIRE_EQUAL(want, testing::bits_of(kernel::scalar::reduce_node(xs.data(), n, op)));
            for (std::size_t t = 1; t <= 8; ++t) {
                for (const std::uint64_t min_piece : {std::uint64_t{1}, std::uint64_t{7}}) {
                    const kernel::split_context pooled{pool_of(t), min_piece};
                    const auto got = testing::bits_of(kernel::reduce_node_split<K>(xs.data(), n, op, pooled));
                    BOOST_CHECK_MESSAGE(got == want, name << " pool t=" << t << " N=" << n << " min_piece=" << min_piece);
                    backwards_executor back{t};
                    const kernel::split_context backwards{back, min_piece};
                    const auto got_back = testing::bits_of(kernel::reduce_node_split<K>(xs.data(), n, op, backwards));
                    BOOST_CHECK_MESSAGE(got_back == want, name << " backwards t=" << t << " N=" << n);
                }
            }
        });
    }
}

// Up to 64 pieces: a pool of 64 threads, and the backwards executor claiming every t in 9..64.
BOOST_AUTO_TEST_CASE(up_to_64_threads)
{
    const std::uint64_t n = 100003;
    const auto xs = testing::mixed_values(64, n, false);
    ops::plus op;
    const auto want = testing::bits_of(kernel::scalar::reduce_node(xs.data(), n, op));
    thread_pool pool(64);
    BOOST_CHECK_EQUAL(testing::bits_of(kernel::reduce_node_split<kernel::best>(xs.data(), n, op, {pool, 1})), want);
    for (std::size_t t = 9; t <= 64; ++t) {
        backwards_executor back{t};
        BOOST_CHECK_MESSAGE(testing::bits_of(kernel::reduce_node_split<kernel::best>(xs.data(), n, op, {back, 1})) == want,
                            "t=" << t);
    }
}

// The shared data sets: the published tree-sum bits (reference_tree_sum.csv) at every t, and
// for the two larger files the single-thread kernel's bits at every t.
BOOST_AUTO_TEST_CASE(data_sets_at_every_t)
{
    const auto dir = testing::psllh_dir_or_skip();
    if (!dir) {
        return;
    }
    const auto refs = testing::reference_bits(*dir);
    BOOST_REQUIRE(!refs.empty());
    for (const char* name : {"354", "multi100", "prim", "fusob", "dna_rokasD4", "aa_rokasA8"}) {
        const auto path = *dir / (std::string(name) + ".binpsllh");
        if (!std::filesystem::exists(path)) {
            continue;
        }
        const auto xs = io::read_binpsllh(path);
        ops::plus op;
        const auto it = refs.find(std::string(name) + ".binpsllh");
        const std::uint64_t want = it != refs.end() ? it->second
                                                    : testing::bits_of(kernel::best::reduce_node(xs.data(), xs.size(), op));
        for (std::size_t t = 1; t <= 8; ++t) {
            const kernel::split_context context{pool_of(t), 16};
            const auto got = testing::bits_of(kernel::reduce_node_split<kernel::best>(xs.data(), xs.size(), op, context));
            BOOST_CHECK_MESSAGE(got == want, name << " t=" << t);
        }
    }
}

// A non-commutative, exact operator (2x2 integer matrices): any swap of operands or pieces
// merged out of index order would show.
BOOST_AUTO_TEST_CASE(merge_keeps_index_order)
{
    std::mt19937_64 rng(19);
    std::vector<testing::mat2> ms(5003);
    for (auto& m : ms) {
        m = {rng() % 7, rng() % 7, rng() % 7, rng() % 7};
    }
    auto op = [](const testing::mat2& x, const testing::mat2& y) { return testing::mat_mul(x, y); };
    for (const std::uint64_t n : {std::uint64_t{2}, std::uint64_t{31}, std::uint64_t{1000}, std::uint64_t{5003}}) {
        const auto want = kernel::scalar::reduce_node(ms.data(), n, op);
        for (std::size_t t = 2; t <= 8; ++t) {
            const kernel::split_context context{pool_of(t), 1};
            BOOST_CHECK_MESSAGE(kernel::reduce_node_split<kernel::scalar>(ms.data(), n, op, context) == want,
                                "mat2 t=" << t << " N=" << n);
        }
    }
}

// Through the reducer: t = 1..8 on every sub-communicator size, random layouts (about one block
// in four empty) and N < p, every kernel with the direct exchange and kernel::best with native
// and the binomial tree; all_reduce, reduce and iall_reduce all give the oracle's bits.
BOOST_AUTO_TEST_CASE(reducer_same_bits_every_t_and_p)
{
    for (const std::uint64_t n : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{200}, std::uint64_t{4099}}) {
        const auto xs = testing::mixed_values(n + 11, n, false);
        const auto want = testing::bits_of(testing::oracle_reduce(xs, ops::plus{}));
        testing::on_every_size([&](const boost::mpi::communicator& sub) {
            const int p = sub.size();
            auto check = [&]<class K, class E>(const char* name, std::type_identity<K>, E, const layout::block_layout& l) {
                reducer<double, ops::plus, K, E> r(sub, l);
                const auto b = l.block_of(sub.rank());
                const std::span<const double> mine(xs.data() + b.start, b.count);
                for (std::size_t t = 1; t <= 8; ++t) {
                    r.set_threads(pool_of(t), 3);
                    BOOST_CHECK_EQUAL(r.threads(), t);
                    const auto all = testing::bits_of(r.all_reduce(mine));
                    const auto at_root = r.reduce(mine, p - 1);
                    const bool root_ok = at_root.has_value() == (sub.rank() == p - 1) &&
                                         (!at_root || testing::bits_of(*at_root) == want);
                    auto req = r.iall_reduce(mine);
                    const auto started = testing::bits_of(req.wait());
                    BOOST_CHECK_MESSAGE(all == want && root_ok && started == want,
                                        name << "/" << E::name << " t=" << t << " p=" << p << " N=" << n);
                }
            };
            for (const bool random : {false, true}) {
                const auto l = random ? testing::random_layout(n * 5 + static_cast<std::uint64_t>(p), n, p)
                                      : layout::block_layout::from_counts(layout::even_upper(n, p));
                for_each_kernel([&]<class K>(const char* name, std::type_identity<K> k) { check(name, k, exchange::direct{}, l); });
                check("best", std::type_identity<kernel::best>{}, exchange::native{}, l);
                check("best", std::type_identity<kernel::best>{}, exchange::tree<>{}, l);
            }
            return std::vector<unsigned char>{};
        });
    }
}

// The reducer's own pool: set_threads(t) makes one, set_threads(1) goes back to one thread.
BOOST_AUTO_TEST_CASE(owned_pool)
{
    const std::uint64_t n = 100000;
    const auto xs = testing::mixed_values(5, n, false);
    const auto want = testing::bits_of(testing::oracle_reduce(xs, ops::plus{}));
    reducer<double> r(world(), n);
    const auto b = r.local_block();
    const std::span<const double> mine(xs.data() + b.start, b.count);
    for (const std::size_t t : {3, 1, 2}) {
        r.set_threads(t, 1000);
        BOOST_CHECK_EQUAL(r.threads(), t);
        BOOST_CHECK_EQUAL(testing::bits_of(r.all_reduce(mine)), want);
    }
}

// kernel::split named as the reducer's kernel and set_threads as well: the pieces do not
// split again (a nested run of the same pool would wait for itself), the bits stay.
BOOST_AUTO_TEST_CASE(split_named_as_the_kernel)
{
    const std::uint64_t n = 20011;
    const auto xs = testing::mixed_values(7, n, false);
    const auto want = testing::bits_of(testing::oracle_reduce(xs, ops::plus{}));
    reducer<double, ops::plus, kernel::split<kernel::best>, exchange::direct> r(world(), n);
    const auto b = r.local_block();
    const std::span<const double> mine(xs.data() + b.start, b.count);
    BOOST_CHECK_EQUAL(testing::bits_of(r.all_reduce(mine)), want);
    r.set_threads(pool_of(4), 3);
    BOOST_CHECK_EQUAL(testing::bits_of(r.all_reduce(mine)), want);
}

// An operator that throws on one rank, on one thread of it (the element 0.5 is in one piece),
// or on every thread: the rank where it threw gets the operator's own exception and the others
// remote_failure naming that rank, as with one thread; no thread is left running or waiting.
BOOST_AUTO_TEST_CASE(throwing_operator_reported_as_single_thread)
{
    const auto& w = world();
    const std::uint64_t n = 4000 * static_cast<std::uint64_t>(w.size());
    const auto l = layout::block_layout::from_counts(layout::even_upper(n, w.size()));
    const auto b = l.block_of(w.rank());
    for (const bool everywhere : {false, true}) {
        for (int bad = 0; bad < w.size(); ++bad) {
            std::vector<double> xs(n, 1.0);
            xs[l.block_of(bad).start + 2999] = 0.5; // in one piece, not the first
            const bool armed = w.rank() == bad;
            auto op = [armed, everywhere](double x, double y) {
                if (armed && (everywhere || x == 0.5 || y == 0.5)) {
                    throw op_error("operator refused");
                }
                return x + y;
            };
            reducer<double, decltype(op), kernel::best, exchange::direct> r(w, l, op);
            const std::span<const double> mine(xs.data() + b.start, b.count);
            for (const std::size_t t : {1, 2, 4, 8}) {
                r.set_threads(pool_of(t), 100);
                bool right = false;
                try {
                    r.all_reduce(mine);
                } catch (const op_error&) {
                    right = armed;
                } catch (const remote_failure& e) {
                    right = !armed && e.info.rank == bad;
                }
                BOOST_CHECK_MESSAGE(right, "rank " << w.rank() << " t=" << t << " bad=" << bad << " everywhere=" << everywhere);
            }
            // The reducer and the pool are intact: a clean call afterwards is right.
            std::vector<double> ones(n, 1.0);
            auto plain = [](double x, double y) { return x + y; };
            reducer<double, decltype(plain), kernel::best, exchange::direct> clean(w, l, plain);
            clean.set_threads(pool_of(4), 100);
            BOOST_CHECK_EQUAL(clean.all_reduce(std::span<const double>(ones.data() + b.start, b.count)),
                              static_cast<double>(n));
        }
    }
}

// The pool runs each task exactly once, for any n, also when 3 threads share it at once.
BOOST_AUTO_TEST_CASE(pool_runs_every_task_once)
{
    BOOST_CHECK_THROW(thread_pool(0), std::invalid_argument);
    for (std::size_t t = 1; t <= 8; ++t) {
        thread_pool& pool = pool_of(t);
        BOOST_CHECK_EQUAL(pool.concurrency(), t);
        for (const std::size_t n : {0, 1, 5, 100}) {
            std::vector<std::atomic<int>> hits(n);
            auto body = [&](std::size_t i) { ++hits[i]; };
            pool.run(n, task_ref(body));
            for (std::size_t i = 0; i < n; ++i) {
                BOOST_CHECK_EQUAL(hits[i].load(), 1);
            }
        }
    }
    thread_pool& shared = pool_of(4);
    std::atomic<int> total{0};
    {
        std::vector<std::jthread> users;
        for (int u = 0; u < 3; ++u) {
            users.emplace_back([&] {
                auto body = [&](std::size_t) { ++total; };
                for (int rep = 0; rep < 50; ++rep) {
                    shared.run(16, task_ref(body));
                }
            });
        }
    }
    BOOST_CHECK_EQUAL(total.load(), 3 * 50 * 16);
}

BOOST_AUTO_TEST_SUITE_END()
