// The accurate sum (kernel/accurate.hpp, accurate_reducer.hpp) and its reference, the exact
// long accumulator (support/exact_sum.hpp): the reference's own checks; accurate_plus's
// error-free steps; every lifted kernel gives the tree's bits; accurate_reducer gives the same
// bits for every p (1 .. world size), layout, exchange and kernel; and its error against the
// correctly rounded sum on adversarial inputs and the data sets stays within the proved bound
// (one ulp where the condition number allows it).
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/conformance.hpp"
#include "support/exact_sum.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/accurate_reducer.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/model/schedules.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/rma/one_sided.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/io/values_file.hpp"
#include "treefold/kernel/accurate.hpp"
#include "treefold/kernel/simd.hpp"
#include "treefold/reducer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace treefold;
namespace mpi = boost::mpi;

namespace {

constexpr double u = 0x1p-53; // unit roundoff

std::vector<double_double> lifted(const std::vector<double>& xs)
{
    std::vector<double_double> out;
    for (const double x : xs) {
        out.push_back(double_double::lift(x));
    }
    return out;
}

/// The tree's double-double over xs: the test oracle over the lifted values.
double_double oracle_accurate(const std::vector<double>& xs) { return testing::oracle_reduce(lifted(xs), ops::accurate_plus{}); }

/// sum |x_i| (as a double: only used for the bound).
double abs_sum(const std::vector<double>& xs)
{
    testing::exact_sum acc;
    for (const double x : xs) {
        acc.add(std::fabs(x));
    }
    return acc.rounded();
}

/// The proved bound on |accurate sum - exact sum| for N values: ((1 + 3u^2/(1-4u))^h - 1)
/// sum|x| for the tree of depth h, plus the final rounding (u |result|); 1 % slack for the
/// bound's own rounding.
double error_bound(const std::vector<double>& xs, double result)
{
    const double h = std::ceil(std::log2(static_cast<double>(xs.size())));
    return 1.01 * (3 * h * u * u / (1 - 4 * u) * abs_sum(xs) + u * std::fabs(result));
}

/// f(K{}) for each precompiled accurate_simd<Arch> the CPU supports.
template <class F>
void for_each_simd_kernel(F&& f)
{
    f(kernel::accurate_simd<xsimd::sse2>{});
    if (kernel::simd_supported<xsimd::avx2>()) {
        f(kernel::accurate_simd<xsimd::avx2>{});
    }
    if (kernel::simd_supported<xsimd::avx512f>()) {
        f(kernel::accurate_simd<xsimd::avx512f>{});
    } else {
        BOOST_TEST_MESSAGE("SKIPPED: accurate_simd<avx512f> (the CPU lacks avx512f)");
    }
}

/// accurate_best and every accurate_simd<Arch> give `want`'s bits for xs, also with the data
/// shifted in memory (every alignment of the blocks' loads).
void check_lifted_kernels(const std::vector<double>& xs, const std::vector<unsigned char>& want, const std::string& label)
{
    const std::uint64_t n = xs.size();
    BOOST_CHECK_MESSAGE(testing::bytes_of(kernel::accurate_best::sum(xs.data(), n)) == want, "best " << label);
    for_each_simd_kernel([&]<class K>(K) {
        BOOST_CHECK_MESSAGE(testing::bytes_of(K::sum(xs.data(), n)) == want, K::name << " " << label);
        std::vector<double> shifted(n + 3);
        std::copy(xs.begin(), xs.end(), shifted.begin() + 3);
        BOOST_CHECK_MESSAGE(testing::bytes_of(K::sum(shifted.data() + 3, n)) == want, K::name << " shifted " << label);
    });
}

} // namespace

BOOST_AUTO_TEST_SUITE(exact_reference)

// Two doubles: the hardware's a + b is the correctly rounded sum; the accumulator must agree
// for every magnitude (subnormals, ties, overflow to infinity included).
BOOST_AUTO_TEST_CASE(pairs_match_the_hardware)
{
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int> expo(-1074, 1023);
    std::uniform_real_distribution<double> mant(-2.0, 2.0);
    for (int i = 0; i < 20000; ++i) {
        const double a = std::ldexp(mant(rng), expo(rng));
        const double b = i % 3 == 0 ? std::ldexp(mant(rng), expo(rng)) : -a * (1 + std::ldexp(mant(rng), -(i % 60)));
        const double want = a + b;
        const double xs[] = {a, b};
        const double got = testing::exact_rounded_sum(xs);
        BOOST_CHECK_MESSAGE(testing::bytes_of(got) == testing::bytes_of(want) || (want == 0 && got == 0),
                            std::hexfloat << a << " + " << b << ": got " << got << " want " << want);
    }
    const double big[] = {std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
    BOOST_CHECK_EQUAL(testing::exact_rounded_sum(big), std::numeric_limits<double>::infinity());
    const double tiny[] = {std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::denorm_min()};
    BOOST_CHECK_EQUAL(testing::exact_rounded_sum(tiny), 2 * std::numeric_limits<double>::denorm_min());
}

// Sums of many terms with a known exact value: integers (exact in int64, rounded once by the
// int64 -> double conversion), cancellation to a single term, ties and the sticky bit.
BOOST_AUTO_TEST_CASE(known_sums)
{
    std::mt19937_64 rng(11);
    for (int trial = 0; trial < 200; ++trial) {
        std::int64_t exact = 0;
        std::vector<double> xs;
        for (int i = 0; i < 100; ++i) {
            const auto v = static_cast<std::int64_t>(rng() % (std::uint64_t{1} << 56)) - (std::int64_t{1} << 55);
            const double d = static_cast<double>(v); // rounded to 53 bits; exact is over the doubles
            exact += static_cast<std::int64_t>(d);
            xs.push_back(d);
        }
        BOOST_CHECK_EQUAL(testing::exact_rounded_sum(xs), static_cast<double>(exact));
    }
    const double cancel[] = {1e300, 1e-300, -1e300, 1e16, 1.0, -1e16};
    BOOST_CHECK_EQUAL(testing::exact_rounded_sum(cancel), 1.0 + 1e-300);
    const double tie[] = {1.0, 0x1p-53};                  // halfway: to even (1)
    const double above[] = {1.0, 0x1p-53, 0x1p-1074};     // just above halfway: up
    const double odd_tie[] = {1.0 + 0x1p-52, 0x1p-53};    // halfway from an odd one: up
    BOOST_CHECK_EQUAL(testing::exact_rounded_sum(tie), 1.0);
    BOOST_CHECK_EQUAL(testing::exact_rounded_sum(above), 1.0 + 0x1p-52);
    BOOST_CHECK_EQUAL(testing::exact_rounded_sum(odd_tie), 1.0 + 0x1p-51);
    const double negative[] = {-1.0, -0x1p-53, -0x1p-1074};
    BOOST_CHECK_EQUAL(testing::exact_rounded_sum(negative), -(1.0 + 0x1p-52));
    BOOST_CHECK_THROW(testing::exact_sum().add(std::numeric_limits<double>::infinity()), std::invalid_argument);
    BOOST_CHECK_EQUAL(testing::ulps_apart(1.0, std::nextafter(1.0, 2.0)), 1U);
    BOOST_CHECK_EQUAL(testing::ulps_apart(-0.0, std::numeric_limits<double>::denorm_min()), 1U);
    BOOST_CHECK_EQUAL(testing::ulps_apart(-std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::denorm_min()), 2U);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(accurate_plus)

// The error-free steps: 1e16 + 1 keeps the 1 in the low part, and - 1e16 gives it back.
BOOST_AUTO_TEST_CASE(keeps_what_a_double_drops)
{
    const ops::accurate_plus add;
    const double_double a = add(double_double::lift(1e16), double_double::lift(1.0));
    BOOST_CHECK_EQUAL(a.hi, 1e16);
    BOOST_CHECK_EQUAL(a.lo, 1.0);
    const double_double b = add(a, double_double::lift(-1e16));
    BOOST_CHECK_EQUAL(b.hi, 1.0);
    BOOST_CHECK_EQUAL(b.lo, 0.0);
    // hi stays the rounded value of hi + lo
    const double_double c = add(double_double::lift(1.0), double_double::lift(0x1p-60));
    BOOST_CHECK_EQUAL(c.hi, 1.0);
    BOOST_CHECK_EQUAL(c.lo, 0x1p-60);
    BOOST_CHECK_EQUAL(c.to_double(), 1.0);
}

// Infinities as in a plain sum; no NaN from the error terms.
BOOST_AUTO_TEST_CASE(non_finite)
{
    const ops::accurate_plus add;
    const double inf = std::numeric_limits<double>::infinity();
    const double_double a = add(double_double::lift(inf), double_double::lift(1.0));
    BOOST_CHECK_EQUAL(a.hi, inf);
    BOOST_CHECK_EQUAL(a.lo, 0.0);
    BOOST_CHECK(std::isnan(add(double_double::lift(inf), double_double::lift(-inf)).hi));
    const double big = std::numeric_limits<double>::max();
    BOOST_CHECK_EQUAL(add(double_double::lift(big), double_double::lift(big)).hi, inf);
    BOOST_CHECK(std::signbit(add(double_double::lift(-0.0), double_double::lift(-0.0)).to_double()));
}

// add_lifted is add_dd on two lifted leaves, bit for bit, zeros and non-finite values included.
BOOST_AUTO_TEST_CASE(lifted_pair)
{
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> pool = {0.0, -0.0, 1.0, -1.0, 1e16, -1e16, 0x1p-1074, -0x1p-1074, inf, -inf,
                                std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::max(),
                                -std::numeric_limits<double>::max(), 0x1p-53, 1.0 + 0x1p-52, 3.0};
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<int> expo(-1074, 1023);
    std::uniform_real_distribution<double> mant(-2.0, 2.0);
    for (int i = 0; i < 2000; ++i) {
        pool.push_back(std::ldexp(mant(rng), expo(rng) / (i % 4 + 1)));
    }
    for (std::size_t i = 0; i < pool.size(); ++i) {
        for (std::size_t j = 0; j < pool.size(); j += (i < 16 ? 1 : 97)) {
            double h1 = 0, l1 = 0, h2 = 0, l2 = 0;
            kernel::detail::add_dd(pool[i], 0.0, pool[j], 0.0, h1, l1);
            kernel::detail::add_lifted(pool[i], pool[j], h2, l2);
            BOOST_CHECK_MESSAGE(testing::bytes_of(h1) == testing::bytes_of(h2) && testing::bytes_of(l1) == testing::bytes_of(l2),
                                std::hexfloat << pool[i] << " + " << pool[j]);
        }
    }
}

// The unchecked additions of the SIMD kernel's fast path: add_dd's bits wherever the sum of
// the high parts is finite and not both high parts are -0; a NaN high part where that sum is
// not finite and +0 for two -0 high parts (what the kernel's lane check catches).
BOOST_AUTO_TEST_CASE(unchecked_pair)
{
    const double inf = std::numeric_limits<double>::infinity();
    const double big = std::numeric_limits<double>::max();
    std::vector<double> pool = {0.0, -0.0, 1.0, -1.0, 1e16, -1e16, 0x1p-1074, -0x1p-1074, inf, -inf, big, -big, 0x1p-53, 3.0};
    std::mt19937_64 rng(9);
    std::uniform_int_distribution<int> expo(-1074, 1023);
    std::uniform_real_distribution<double> mant(-2.0, 2.0);
    for (int i = 0; i < 600; ++i) {
        pool.push_back(std::ldexp(mant(rng), expo(rng) / (i % 4 + 1)));
    }
    // normalised double-doubles: pairs of pool values, and their negations (exact cancellation)
    std::vector<double_double> dds;
    for (std::size_t i = 0; i < pool.size(); ++i) {
        double h = 0, l = 0;
        kernel::detail::add_lifted(pool[i], pool[(i * 7 + 3) % pool.size()], h, l);
        dds.push_back({h, l});
        dds.push_back({-h, -l});
        dds.push_back(double_double::lift(pool[i]));
    }
    int finite = 0;
    for (std::size_t i = 0; i < dds.size(); ++i) {
        for (std::size_t j = 0; j < dds.size(); j += (i < 48 ? 1 : 53)) {
            const auto& a = dds[i];
            const auto& b = dds[j];
            double h1 = 0, l1 = 0, h2 = 0, l2 = 0;
            kernel::detail::add_dd(a.hi, a.lo, b.hi, b.lo, h1, l1);
            kernel::detail::add_dd_unchecked(a.hi, a.lo, b.hi, b.lo, h2, l2);
            const double s = a.hi + b.hi;
            if (!std::isfinite(s)) {
                BOOST_CHECK_MESSAGE(std::isnan(h2), std::hexfloat << a.hi << " + " << b.hi << ": " << h2);
            } else if (std::signbit(a.hi) && std::signbit(b.hi) && a.hi == 0 && b.hi == 0) {
                BOOST_CHECK(h2 == 0 && !std::signbit(h2));
            } else {
                ++finite;
                BOOST_CHECK_MESSAGE(testing::bytes_of(h1) == testing::bytes_of(h2) && testing::bytes_of(l1) == testing::bytes_of(l2),
                                    std::hexfloat << "{" << a.hi << ", " << a.lo << "} + {" << b.hi << ", " << b.lo << "}");
            }
        }
    }
    BOOST_CHECK_GT(finite, 100000);
    for (const double a : pool) {
        for (const double b : pool) {
            double h1 = 0, l1 = 0, h2 = 0, l2 = 0;
            kernel::detail::add_lifted(a, b, h1, l1);
            kernel::detail::add_lifted_unchecked(a, b, h2, l2);
            const bool same = testing::bytes_of(h1) == testing::bytes_of(h2) && testing::bytes_of(l1) == testing::bytes_of(l2);
            BOOST_CHECK_MESSAGE(std::isfinite(a + b) ? same : std::isnan(l2), std::hexfloat << a << " + " << b);
        }
    }
}

// The SIMD kernels fold each block unchecked and refold it guarded where a lane node comes out
// non-finite or zero: blocks hitting that check in every way (-0 leaves over whole lanes and in
// part of one, zeros, exact cancellation to zero with and without low parts, infinities, NaN,
// overflow inside a lane that later cancels) give the oracle's bits, next to ordinary blocks.
BOOST_AUTO_TEST_CASE(fast_path_fallback)
{
    const double inf = std::numeric_limits<double>::infinity();
    const double big = std::numeric_limits<double>::max();
    // every stratum of every width, and a rest; in cache and (over in_cache_values) streaming
    const std::uint64_t small = 4 * 4096 + 3 * 512 + 64 + 37;
    static_assert(small <= kernel::detail::accurate_block_kernel::in_cache_values);
    std::vector<std::pair<const char*, std::function<void(std::vector<double>&)>>> cases = {
        {"all -0", [](auto& xs) { std::fill(xs.begin(), xs.end(), -0.0); }},
        {"all +0", [](auto& xs) { std::fill(xs.begin(), xs.end(), 0.0); }},
        {"-0 and +0", [](auto& xs) { for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = i % 3 ? -0.0 : 0.0; }},
        {"-0 runs", [](auto& xs) {
             std::fill(xs.begin() + 4096, xs.begin() + 4096 + 512, -0.0); // one whole lane of a block
             std::fill(xs.begin() + 8192 + 64, xs.begin() + 8192 + 96, -0.0); // part of a lane
             std::fill(xs.begin() + 12288, xs.begin() + 16384, -0.0); // a whole block
         }},
        {"cancel to 0", [](auto& xs) {
             for (std::size_t i = 4096; i < 8192; i += 2) xs[i + 1] = -xs[i];
         }},
        {"cancel hi only", [](auto& xs) {
             for (std::size_t i = 0; i < 1024; i += 4) { xs[i] = 1e16; xs[i + 1] = 1.0; xs[i + 2] = -1e16; xs[i + 3] = 0x1p-30; }
         }},
        {"inf", [inf](auto& xs) { xs[5000] = inf; }},
        {"inf - inf", [inf](auto& xs) { xs[300] = inf; xs[301] = -inf; }},
        {"NaN", [](auto& xs) { xs[9000] = std::numeric_limits<double>::quiet_NaN(); }},
        {"overflow", [big](auto& xs) { xs[100] = big; xs[101] = big; xs[102] = -big; xs[103] = -big; }},
        {"overflow then -inf", [big, inf](auto& xs) { xs[7000] = big; xs[7001] = big; xs[7100] = -inf; }},
    };
    for (const std::uint64_t n : {small, small + kernel::detail::accurate_block_kernel::in_cache_values}) {
        for (const auto& [name, make] : cases) {
            auto xs = testing::mixed_values(17, n, false);
            make(xs);
            check_lifted_kernels(xs, testing::bytes_of(oracle_accurate(xs)), std::string(name) + " N=" + std::to_string(n));
        }
    }
}

// Every lifted kernel gives the oracle's double-double bits (the tree over {x, 0} leaves),
// and so do the generic kernels on stored double-doubles.
BOOST_AUTO_TEST_CASE(kernels_give_the_tree)
{
    for (const std::uint64_t n : {1ULL, 2ULL, 3ULL, 7ULL, 16ULL, 31ULL, 64ULL, 65ULL, 100ULL, 127ULL, 255ULL, 513ULL, 1023ULL,
                                  4095ULL, 4097ULL, 70001ULL, 140001ULL}) {
        auto xs = testing::mixed_values(n, n, false);
        if (n > 50) {
            xs[n / 2] = std::numeric_limits<double>::infinity();
        }
        const auto want = testing::bytes_of(oracle_accurate(xs));
        BOOST_CHECK_MESSAGE(testing::bytes_of(kernel::accurate_scalar::sum(xs.data(), n)) == want, "scalar N=" << n);
        check_lifted_kernels(xs, want, "N=" + std::to_string(n));
        const auto dd = lifted(xs);
        ops::accurate_plus op;
        BOOST_CHECK_MESSAGE(testing::bytes_of(kernel::scalar::reduce_node(dd.data(), n, op)) == want, "stored N=" << n);
        BOOST_CHECK_MESSAGE(testing::bytes_of(kernel::best::reduce_node(dd.data(), n, op)) == want, "stored best N=" << n);
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(accurate_reducer_bits)

// accurate_reducer<K, E> on every sub-communicator size, for rank-order and random layouts
// (empty blocks): all_reduce, the unrounded parts and reduce to the last rank give the
// oracle's bits; reducer<double_double, accurate_plus> on stored values agrees.
BOOST_AUTO_TEST_CASE(same_bits_everywhere)
{
    for (const std::uint64_t n : {1ULL, 5ULL, 1000ULL, 40001ULL}) {
        auto xs = testing::mixed_values(n + 3, n, false);
        const double_double want = oracle_accurate(xs);
        const auto want_bytes = testing::bytes_of(want);
        auto check = [&]<class K, class E>(K, E) {
            const auto results = testing::on_every_size([&](const mpi::communicator& sub) {
                std::vector<unsigned char> out;
                for (const auto& l : testing::basic_layouts(n, sub.size(), n + 1)) {
                    accurate_reducer<K, E> r(sub, l.layout);
                    const auto b = l.layout.block_of(sub.rank());
                    const std::span<const double> local(xs.data() + (b.count > 0 ? b.start : 0), b.count);
                    const double_double parts = r.all_reduce_parts(local);
                    const double sum = r.all_reduce(local);
                    const auto at_root = r.reduce(local, sub.size() - 1);
                    bool ok = testing::bytes_of(parts) == want_bytes && testing::bytes_of(sum) == testing::bytes_of(want.hi);
                    ok = ok && at_root.has_value() == (sub.rank() == sub.size() - 1);
                    ok = ok && (!at_root || testing::bytes_of(*at_root) == testing::bytes_of(want.hi));
                    BOOST_CHECK_MESSAGE(ok, "accurate_reducer<" << K::name << ", " << E::name << "> N=" << n << " p="
                                                                << sub.size() << " layout " << l.name);
                    const auto dd = lifted(xs);
                    reducer<double_double, ops::accurate_plus, kernel::scalar, E> stored(sub, l.layout);
                    const double_double s = stored.all_reduce(std::span<const double_double>(dd.data() + (b.count > 0 ? b.start : 0), b.count));
                    BOOST_CHECK_MESSAGE(testing::bytes_of(s) == want_bytes, "reducer<double_double> " << E::name << " N=" << n);
                    out = testing::bytes_of(parts);
                }
                return out;
            });
            testing::expect_same_across_sizes(results, "accurate_reducer");
        };
        // every exchange the library ships (test/conformance's list)
        testing::for_each_type(testing::all_exchanges{}, [&]<class E>(std::type_identity<E>, std::size_t) {
            check(kernel::accurate_scalar{}, E{});
        });
        check(kernel::accurate_best{}, exchange::automatic{});
        check(kernel::accurate_best{}, exchange::native{});
        for_each_simd_kernel([&](auto k) { check(k, exchange::tree<>{}); });
    }
}

// A wrong local size is reported on every rank, and N = 0 has no sum, as by treefold::reducer.
BOOST_AUTO_TEST_CASE(wrong_size)
{
    testing::check_input_errors<accurate_reducer<>>(testing::world());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(accurate_error)

// 1e16 + 1 - 1e16 and other cancellations: exactly the correctly rounded sum, where the plain
// tree sum loses it; at every p.
BOOST_AUTO_TEST_CASE(cancellation)
{
    const std::vector<std::vector<double>> cases = {
        {1e16, 1.0, -1e16},
        {1.0, 1e100, 1.0, -1e100},
        {1e16, 1.0, 1.0, 1.0, -1e16, 1.0, 1e-16, 3.0},
        {0x1p60, 1.0, -0x1p60, 0x1p-60, 0x1p70, -0x1p70, 7.0, 0x1p-60}};
    for (const auto& xs : cases) {
        const double want = testing::exact_rounded_sum(xs);
        const auto results = testing::on_every_size([&](const mpi::communicator& sub) {
            accurate_reducer<> r(sub, xs.size());
            const auto b = r.local_block();
            return testing::bytes_of(r.all_reduce(std::span<const double>(xs.data() + (b.count > 0 ? b.start : 0), b.count)));
        });
        for (const auto& got : results) {
            BOOST_CHECK(got == testing::bytes_of(want));
        }
        BOOST_CHECK(testing::bytes_of(oracle_accurate(xs).hi) == testing::bytes_of(want));
    }
    // the plain tree sum of the first case is 0, not 1
    BOOST_CHECK_EQUAL(testing::oracle_reduce(cases[0], ops::plus{}), 0.0);
}

// Mixed magnitudes and condition numbers 2^0 .. 2^100 (1e30): the error stays within the
// proved bound, and within one ulp of the correctly rounded sum while 3 h u cond < 1/4.
BOOST_AUTO_TEST_CASE(condition_numbers)
{
    for (const std::size_t n : {100UL, 10000UL}) {
        for (int bits = 0; bits <= 100; bits += 10) {
            for (int spread : {0, 30, 300}) {
                const auto xs = testing::ill_conditioned(n * 1000 + static_cast<std::size_t>(bits * 7 + spread), n, spread, bits);
                const double got = kernel::accurate_best::sum(xs.data(), xs.size()).to_double();
                const double want = testing::exact_rounded_sum(xs);
                const double err = testing::abs_error(got, xs);
                BOOST_CHECK_MESSAGE(err <= error_bound(xs, got), "N=" << n << " cond~2^" << bits << " spread " << spread
                                                                        << ": error " << err << " bound " << error_bound(xs, got));
                const double h = std::ceil(std::log2(static_cast<double>(xs.size())));
                const double cond = abs_sum(xs) / std::fabs(want);
                if (3 * h * u * cond < 0.25) {
                    BOOST_CHECK_MESSAGE(testing::ulps_apart(got, want) <= 1,
                                        "N=" << n << " cond " << cond << ": " << testing::ulps_apart(got, want) << " ulps");
                }
            }
        }
        const auto mixed = testing::mixed_values(n, n, false);
        BOOST_CHECK_LE(testing::ulps_apart(kernel::accurate_best::sum(mixed.data(), n).to_double(),
                                           testing::exact_rounded_sum(mixed)),
                       1U);
    }
}

// The per-site log-likelihood data sets (well conditioned: all terms negative): the accurate
// sum is the correctly rounded one to within one ulp.
BOOST_AUTO_TEST_CASE(data_sets)
{
    const auto dir = testing::psllh_dir_or_skip();
    if (!dir) {
        return;
    }
    for (const char* file : {"354.binpsllh", "multi100.binpsllh", "prim.binpsllh", "fusob.binpsllh",
                             "dna_rokasD4.binpsllh", "aa_rokasA8.binpsllh"}) {
        const std::vector<double> xs = io::read_values(*dir / file);
        const double want = testing::exact_rounded_sum(xs);
        const double got = kernel::accurate_best::sum(xs.data(), xs.size()).to_double();
        BOOST_CHECK_MESSAGE(testing::ulps_apart(got, want) <= 1, file << ": " << testing::ulps_apart(got, want) << " ulps");
        BOOST_CHECK_EQUAL(got, oracle_accurate(xs).hi);
    }
}

BOOST_AUTO_TEST_SUITE_END()
