// Dot products (kernel/dot.hpp, dot_reducer.hpp): every dot kernel gives, for every N, the bits
// of kernel::scalar over the stored products x[i] * y[i]; dot_reducer gives the bits of
// reducer<double> over the stored products for p = 1 .. 4 (on_every_size), rank-order, ragged
// and permuted layouts with empty blocks, every exchange and kernel, blocking and nonblocking;
// dots_reducer<K> gives each column the bits of its own reduction, in one exchange (the
// messages of a single one); and the errors of reducer's calls.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/conformance.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/dot_reducer.hpp"
#include "treefold/error.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/kernel/dot.hpp"
#include "treefold/kernel/simd.hpp"
#include "treefold/reducer.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

using namespace treefold;
namespace mpi = boost::mpi;

namespace {

/// Values whose products round (random 53-bit mantissas, mixed signs and exponents), so a
/// product fused into the sum, or summed in another order, shows in the bits.
template <class T = double>
std::vector<T> random_values(std::uint64_t seed, std::uint64_t n)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<T> mant(T(-1), T(1));
    std::uniform_int_distribution<int> expo(-20, 20);
    std::vector<T> out(n);
    for (auto& v : out) {
        v = std::ldexp(mant(rng), expo(rng));
    }
    return out;
}

template <class T>
std::vector<T> products(const std::vector<T>& x, const std::vector<T>& y)
{
    std::vector<T> p(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        p[i] = x[i] * y[i];
    }
    return p;
}

/// f(K{}) for every dot kernel the CPU runs.
template <class F>
void for_each_dot_kernel(F&& f)
{
    f(kernel::dot_scalar{});
    f(kernel::dot_best{});
    f(kernel::dot_simd<xsimd::sse2>{});
    if (kernel::simd_supported<xsimd::avx2>()) {
        f(kernel::dot_simd<xsimd::avx2>{});
    }
    if (kernel::simd_supported<xsimd::avx512f>()) {
        f(kernel::dot_simd<xsimd::avx512f>{});
    }
}

const std::uint64_t kernel_sizes[] = {1,  2,   3,   4,   5,   7,   8,    9,    15,   16,   17,   31,    32,    33,
                                      63, 64,  65,  100, 127, 128, 129,  255,  256,  257,  511,  513,   1000,  1023,
                                      1024, 1025, 4095, 4096, 4097, 5000, 16383, 16385, 65537, 70001, 140001};

template <class T>
void check_kernels(const std::uint64_t n, bool specials)
{
    auto x = random_values<T>(n, n);
    auto y = random_values<T>(n + 7, n);
    if (specials && n > 40) {
        x[n / 3] = std::numeric_limits<T>::infinity();
        y[n / 2] = T(-0.0);
        x[n - 1] = std::numeric_limits<T>::denorm_min();
    }
    const auto p = products(x, y);
    ops::plus op;
    const T want = kernel::scalar::reduce_node(p.data(), n, op);
    BOOST_REQUIRE(testing::bytes_of(want) == testing::bytes_of(testing::oracle_reduce(p, ops::plus{})));
    BOOST_CHECK_MESSAGE(testing::bytes_of(kernel::best::reduce_node(p.data(), n, op)) == testing::bytes_of(want),
                        "best over stored products N=" << n);
    for_each_dot_kernel([&]<class K>(K) {
        BOOST_CHECK_MESSAGE(testing::bytes_of(K::template dot<T>(x.data(), y.data(), n)) == testing::bytes_of(want),
                            "dot kernel " << K::name << " N=" << n << (sizeof(T) == 4 ? " float" : " double"));
        BOOST_CHECK_MESSAGE(testing::bytes_of(K::template sum<T>(p.data(), n)) == testing::bytes_of(want),
                            "sum kernel " << K::name << " N=" << n);
    });
}

} // namespace

BOOST_AUTO_TEST_SUITE(dot_kernels)

// Every kernel, every length class (below, at and above each register and stratum size, the
// clipped edge): the bits of the scalar tree over the stored products, for double and float,
// with an infinity, a -0 and a subnormal among them.
BOOST_AUTO_TEST_CASE(kernels_give_the_tree_of_the_products)
{
    for (const std::uint64_t n : kernel_sizes) {
        check_kernels<double>(n, false);
        check_kernels<double>(n, true);
        check_kernels<float>(n, false);
    }
}

// The products are rounded one by one: a sum that fused each product into the addition (an
// FMA) gives other bits on these inputs, so the check above can tell them apart.
BOOST_AUTO_TEST_CASE(a_fused_product_differs)
{
    const std::uint64_t n = 1000;
    const auto x = random_values(1, n);
    const auto y = random_values(2, n);
    ops::plus op;
    double fused = 0.0;
    double rounded = 0.0;
    for (std::uint64_t i = 0; i < n; ++i) {
        fused = std::fma(x[i], y[i], fused);
        rounded = rounded + x[i] * y[i];
    }
    BOOST_CHECK(testing::bits_of(fused) != testing::bits_of(rounded));
    const auto p = products(x, y);
    BOOST_CHECK_EQUAL(testing::bits_of(kernel::dot_best::dot(x.data(), y.data(), n)),
                      testing::bits_of(kernel::scalar::reduce_node(p.data(), n, op)));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(dot_reducer_bits)

// dot_reducer<K, E> on every sub-communicator size 1 .. 4, for rank-order, ragged (uneven,
// power-of-two, aligned), reversed, one-rank and permuted layouts with empty blocks: all_reduce,
// reduce to the last rank and iall_reduce give the bits of reducer<double> over the stored
// products, which are the same for every p.
BOOST_AUTO_TEST_CASE(same_bits_as_the_stored_products)
{
    for (const std::uint64_t n : {1ULL, 2ULL, 3ULL, 5ULL, 17ULL, 100ULL, 1000ULL, 4097ULL, 40001ULL}) {
        const auto x = random_values(n + 11, n);
        const auto y = random_values(n + 12, n);
        const auto p = products(x, y);
        const double want = testing::oracle_reduce(p, ops::plus{});
        auto check = [&]<class K, class E>(K, E, bool all_layouts) {
            const auto results = testing::on_every_size([&](const mpi::communicator& sub) {
                const auto layouts = all_layouts ? testing::layout_kinds(n, sub.size(), n + 1)
                                                 : testing::basic_layouts(n, sub.size(), n + 1);
                for (const auto& l : layouts) {
                    dot_reducer<K, E> r(sub, l.layout);
                    const auto b = l.layout.block_of(sub.rank());
                    const std::size_t at = b.count > 0 ? b.start : 0;
                    const std::span<const double> xl(x.data() + at, b.count);
                    const std::span<const double> yl(y.data() + at, b.count);
                    const double got = r.all_reduce(xl, yl);
                    const auto at_root = r.reduce(xl, yl, sub.size() - 1);
                    auto pending = r.iall_reduce(xl, yl);
                    const double later = pending.wait();
                    reducer<double, ops::plus, kernel::best, E> stored(sub, l.layout);
                    const double plain = stored.all_reduce(std::span<const double>(p.data() + at, b.count));
                    bool ok = testing::bits_of(got) == testing::bits_of(want) && testing::bits_of(plain) == testing::bits_of(want);
                    ok = ok && testing::bits_of(later) == testing::bits_of(want);
                    ok = ok && at_root.has_value() == (sub.rank() == sub.size() - 1);
                    ok = ok && (!at_root || testing::bits_of(*at_root) == testing::bits_of(want));
                    BOOST_CHECK_MESSAGE(ok, "dot_reducer<" << K::name << ", " << E::name << "> N=" << n << " p=" << sub.size()
                                                           << " layout " << l.name << testing::describe(got, want));
                }
                return testing::bytes_of(want);
            });
            testing::expect_same_across_sizes(results, "dot_reducer");
        };
        testing::for_each_type(testing::all_exchanges{}, [&]<class E>(std::type_identity<E>, std::size_t) {
            check(kernel::dot_scalar{}, E{}, false);
        });
        check(kernel::dot_best{}, exchange::automatic{}, true);
        for_each_dot_kernel([&](auto k) { check(k, exchange::tree<>{}, false); });
    }
}

// dots_reducer<3> (a dot, a plain sum and a norm): each column has the bits of its own
// reduction (dot_reducer, reducer<double>), blocking and nonblocking, for p = 1 .. 4 and
// ragged layouts; and the three travel in the messages of one.
BOOST_AUTO_TEST_CASE(k_at_once)
{
    for (const std::uint64_t n : {1ULL, 7ULL, 100ULL, 4097ULL, 30001ULL}) {
        const auto x = random_values(n + 21, n);
        const auto y = random_values(n + 22, n);
        const std::array<double, 3> want = {testing::oracle_reduce(products(x, y), ops::plus{}),
                                            testing::oracle_reduce(x, ops::plus{}),
                                            testing::oracle_reduce(products(y, y), ops::plus{})};
        auto check = [&]<class E>(E) {
            const auto results = testing::on_every_size([&](const mpi::communicator& sub) {
                for (const auto& l : testing::layout_kinds(n, sub.size(), n + 3)) {
                    dots_reducer<3, kernel::dot_best, E> r(sub, l.layout);
                    const auto b = l.layout.block_of(sub.rank());
                    const std::size_t at = b.count > 0 ? b.start : 0;
                    const std::span<const double> xl(x.data() + at, b.count);
                    const std::span<const double> yl(y.data() + at, b.count);
                    const std::array<dot_term, 3> terms = {dot_term(xl, yl), dot_term(xl), dot_term(yl, yl)};
                    const auto got = r.all_reduce(terms);
                    const auto three = r.last_counters();
                    auto pending = r.iall_reduce(terms);
                    const auto later = pending.wait();
                    const auto at_root = r.reduce(terms, 0);
                    dot_reducer<kernel::dot_best, E> one(sub, l.layout);
                    const double single = one.all_reduce(xl, yl);
                    const auto single_counts = one.last_counters();
                    reducer<double, ops::plus, kernel::best, E> sum(sub, l.layout);
                    const std::array<double, 3> separate = {single, sum.all_reduce(xl), one.all_reduce(yl, yl)};
                    bool ok = testing::bytes_of(got) == testing::bytes_of(want) &&
                              testing::bytes_of(separate) == testing::bytes_of(want) &&
                              testing::bytes_of(later) == testing::bytes_of(want);
                    ok = ok && at_root.has_value() == (sub.rank() == 0) && (!at_root || testing::bytes_of(*at_root) == testing::bytes_of(want));
                    BOOST_CHECK_MESSAGE(ok, "dots_reducer<3, " << E::name << "> N=" << n << " p=" << sub.size() << " layout " << l.name);
                    // one exchange: as many messages as one column's (three columns' bytes);
                    // automatic may choose another exchange for 24-byte values than for 8
                    BOOST_CHECK_MESSAGE((std::is_same_v<E, exchange::automatic> || (three.messages == single_counts.messages &&
                                                                                     three.collectives == single_counts.collectives)),
                                        "dots_reducer<3, " << E::name << "> messages " << three.messages << "+"
                                                            << three.collectives << " vs " << single_counts.messages << "+"
                                                            << single_counts.collectives);
                }
                return testing::bytes_of(want);
            });
            testing::expect_same_across_sizes(results, "dots_reducer");
        };
        check(exchange::automatic{});
        check(exchange::native{});
        check(exchange::tree<>{});
        check(exchange::direct{});
    }
}

// Several calls in flight on several reducers: each request gives its own call's bits.
BOOST_AUTO_TEST_CASE(overlapping_requests)
{
    const auto& w = testing::world();
    const std::uint64_t n = 5000;
    const auto x = random_values(31, n);
    const auto y = random_values(32, n);
    dots_reducer<2> a(w, n);
    dot_reducer<> b(w, n);
    const auto blk = a.local_block();
    const std::size_t at = blk.count > 0 ? blk.start : 0;
    const std::span<const double> xl(x.data() + at, blk.count);
    const std::span<const double> yl(y.data() + at, blk.count);
    auto ra = a.iall_reduce({dot_term(xl, yl), dot_term(yl, yl)});
    auto rb = b.iall_reduce(xl, xl);
    const double bx = rb.wait();
    const auto ax = ra.wait();
    BOOST_CHECK_EQUAL(testing::bits_of(ax[0]), testing::bits_of(testing::oracle_reduce(products(x, y), ops::plus{})));
    BOOST_CHECK_EQUAL(testing::bits_of(ax[1]), testing::bits_of(testing::oracle_reduce(products(y, y), ops::plus{})));
    BOOST_CHECK_EQUAL(testing::bits_of(bx), testing::bits_of(testing::oracle_reduce(products(x, x), ops::plus{})));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(dot_reducer_errors)

// A wrong size of x or of y (or of any term's array) throws std::invalid_argument on every
// rank; N = 0 gives +0.0; a NaN result is the canonical quiet NaN.
BOOST_AUTO_TEST_CASE(errors_and_special_results)
{
    const auto& w = testing::world();
    dot_reducer<> r(w, std::uint64_t{10});
    const std::vector<double> right(r.local_count(), 2.0);
    const std::vector<double> wrong(r.local_count() + (w.rank() == 0 ? 1 : 0), 2.0);
    BOOST_CHECK_THROW(r.all_reduce(wrong, right), std::invalid_argument);
    BOOST_CHECK_THROW(r.all_reduce(right, wrong), std::invalid_argument);
    BOOST_CHECK_EQUAL(r.all_reduce(right, right), 40.0);
    dots_reducer<2> two(w, std::uint64_t{10});
    BOOST_CHECK_THROW(two.all_reduce({dot_term(right, right), dot_term(wrong)}), std::invalid_argument);
    BOOST_CHECK_THROW(two.iall_reduce({dot_term(right, wrong), dot_term(right)}).wait(), std::invalid_argument);
    const auto ok = two.all_reduce({dot_term(right, right), dot_term(right)});
    BOOST_CHECK_EQUAL(ok[0], 40.0);
    BOOST_CHECK_EQUAL(ok[1], 20.0);

    dot_reducer<> z(w, std::uint64_t{0});
    BOOST_CHECK_EQUAL(testing::bits_of(z.all_reduce({}, {})), 0u);
    BOOST_CHECK(z.reduce({}, {}, 0).has_value() == (w.rank() == 0));
    BOOST_CHECK_EQUAL(testing::bits_of(z.iall_reduce({}, {}).wait()), 0u);
    dots_reducer<2> z2(w, std::uint64_t{0});
    BOOST_CHECK(testing::bytes_of(z2.all_reduce({dot_term({}, {}), dot_term({})})) ==
                testing::bytes_of(std::array<double, 2>{}));

    std::vector<double> nan_in(r.local_count(), 1.0);
    if (!nan_in.empty()) {
        nan_in[0] = -std::numeric_limits<double>::quiet_NaN();
    }
    const double nan = r.all_reduce(nan_in, right);
    BOOST_CHECK_EQUAL(testing::bits_of(nan), testing::bits_of(std::numeric_limits<double>::quiet_NaN()));
}

BOOST_AUTO_TEST_SUITE_END()
