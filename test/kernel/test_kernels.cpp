// The SIMD kernels against kernel::scalar and the recursive oracle, bit for bit: every
// backend (simd<sse2|avx2|avx512f> where the CPU has it, and the dispatching kernel::best),
// every length 1..1100 at random unaligned offsets, a few random lengths up to 10^7, every
// built-in operator and element type, plus generic (non-associative) lambdas on the SIMD
// path and rows of k values. Single-process work: lengths are split across the ranks.
#include <boost/test/unit_test.hpp>

#include "generic_checks.hpp"
#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/rows.hpp"
#include "treefold/kernel/simd_ops.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace treefold;
using testing::world;

/// Branches on a comparison, which does not compile for batches: opted out of SIMD.
struct max_by_branch {
    template <class V>
    V operator()(const V& a, const V& b) const
    {
        if (a < b) {
            return b;
        }
        return a;
    }
};
template <>
struct treefold::kernel::allow_simd<max_by_branch> : std::false_type {};

/// max, lane-wise on batches (select), counting the calls it gets with batches: opted in to
/// the SIMD kernels, so kernel::best must call it with batches.
struct counted_max {
    static inline int batch_calls = 0;
    template <class V>
    V operator()(const V& a, const V& b) const
    {
        if constexpr (std::is_arithmetic_v<V>) {
            return a < b ? b : a;
        } else {
            ++batch_calls;
            return select(a < b, b, a); // xsimd's, found by ADL
        }
    }
};
template <>
struct treefold::kernel::allow_simd<counted_max> : std::true_type {};

namespace {

/// Bitwise equality, except that any two NaNs count as equal. IEEE 754 does not say which
/// operand's NaN an operation returns when both are NaN, x86 returns the first source's,
/// and compilers treat + and * as commutative when they pick the instruction's operand
/// order, so NaN sign and payload are not reproducible in C++ (the oracle and the scalar
/// kernel already disagree). Every other value, -0.0 and subnormals included, must match
/// bit for bit.
template <class T>
bool same_bits(const T& a, const T& b)
{
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) && std::isnan(b)) {
            return true;
        }
    }
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::string show(const T& v)
{
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
}

/// Test values for type T and an operator kind: mixed magnitudes with NaN, +-Inf, -0.0 and
/// subnormals for floating point sums and min/max; factors near 1 for products; small or
/// wrapping integers.
template <class T>
std::vector<T> values_for(ops::builtin_kind kind, std::uint64_t seed, std::uint64_t n)
{
    std::mt19937_64 rng(seed);
    std::vector<T> xs(n);
    if constexpr (std::is_floating_point_v<T>) {
        if (kind == ops::builtin_kind::multiplies) {
            std::uniform_real_distribution<double> f(0.5, 2.0);
            for (auto& x : xs) {
                x = static_cast<T>(rng() % 2 == 0 ? f(rng) : -f(rng));
            }
            if (n > 4) {
                xs[rng() % n] = std::numeric_limits<T>::quiet_NaN();
                xs[rng() % n] = -0.0;
                xs[rng() % n] = std::numeric_limits<T>::denorm_min();
            }
        } else {
            const auto d = testing::mixed_values(seed, n, n > 16);
            for (std::uint64_t i = 0; i < n; ++i) {
                xs[i] = static_cast<T>(d[i]);
            }
        }
    } else {
        for (auto& x : xs) {
            // full-range integers: products and sums wrap (ops:: functors wrap by definition)
            x = static_cast<T>(rng());
        }
    }
    return xs;
}

/// One (type, operator) pair checked on all backends for length n at a random offset.
struct backends {
    bool avx2 = kernel::simd_supported("avx2");
    bool avx512f = kernel::simd_supported("avx512f");
};

/// ops:: functors (which libtreefold precompiles) go to every simd<Arch> directly;
/// std::plus and std::multiplies go through kernel::best only.
template <class T, class Op>
int check_length(const std::vector<T>& pool, std::size_t offset, std::uint64_t n, Op op, bool with_oracle,
                 const char* what)
{
    static const backends have;
    const T* first = pool.data() + offset;
    const T want = kernel::scalar::reduce_node(first, n, op);
    int bad = 0;
    auto expect = [&](const char* backend, const T& got) {
        if (!same_bits(got, want)) {
            if (bad++ < 3) {
                BOOST_ERROR(what << " " << backend << " N=" << n << " offset=" << offset << ": got " << show(got)
                                 << " want " << show(want));
            }
        }
    };
    if (with_oracle) {
        const std::vector<T> xs(first, first + n);
        expect("oracle", testing::oracle_reduce(xs, op));
    }
    if constexpr (ops::builtin_kind_of<Op, T> != ops::builtin_kind::none && ops::is_builtin_type<T> &&
                  std::is_empty_v<Op> && std::is_same_v<Op, std::remove_cv_t<Op>> &&
                  !std::is_same_v<Op, std::plus<T>> && !std::is_same_v<Op, std::multiplies<T>>) {
        expect("sse2", kernel::simd<xsimd::sse2>::reduce_node(first, n, op));
        if (have.avx2) {
            expect("avx2", kernel::simd<xsimd::avx2>::reduce_node(first, n, op));
        }
        if (have.avx512f) {
            expect("avx512f", kernel::simd<xsimd::avx512f>::reduce_node(first, n, op));
        }
    }
    expect("best", kernel::best::reduce_node(first, n, op));
    return bad;
}

/// Every length in [1, max_n] owned by this rank (n % size == rank) at a random offset.
template <class T, class Op>
void check_small(ops::builtin_kind kind, Op op, const char* what)
{
    constexpr std::uint64_t max_n = 1100;
    const auto pool = values_for<T>(kind, 1000 + static_cast<std::uint64_t>(kind), max_n + 64);
    std::mt19937_64 rng(7);
    int bad = 0;
    for (std::uint64_t n = 1; n <= max_n; ++n) {
        const std::size_t offset = rng() % 64; // drawn on every rank: same offsets for any p
        if (testing::dealt_here(n)) {
            bad += check_length(pool, offset, n, op, true, what);
        }
    }
    BOOST_CHECK_MESSAGE(bad == 0, what << ": " << bad << " mismatches");
}

template <class T>
void check_small_all_ops(const char* type)
{
    const std::string t = type;
    check_small<T>(ops::builtin_kind::plus, ops::plus{}, (t + " ops::plus").c_str());
    check_small<T>(ops::builtin_kind::multiplies, ops::multiplies{}, (t + " ops::multiplies").c_str());
    check_small<T>(ops::builtin_kind::min, ops::min{}, (t + " ops::min").c_str());
    check_small<T>(ops::builtin_kind::max, ops::max{}, (t + " ops::max").c_str());
    if constexpr (std::is_floating_point_v<T>) {
        // std::plus / std::multiplies of the type are routed to the same kernels
        check_small<T>(ops::builtin_kind::plus, std::plus<T>{}, (t + " std::plus").c_str());
        check_small<T>(ops::builtin_kind::multiplies, std::multiplies<T>{}, (t + " std::multiplies").c_str());
    }
}

} // namespace

BOOST_AUTO_TEST_SUITE(kernels)

BOOST_AUTO_TEST_CASE(every_length_double) { check_small_all_ops<double>("double"); }
BOOST_AUTO_TEST_CASE(every_length_float) { check_small_all_ops<float>("float"); }
BOOST_AUTO_TEST_CASE(every_length_int32) { check_small_all_ops<std::int32_t>("int32"); }
BOOST_AUTO_TEST_CASE(every_length_int64) { check_small_all_ops<std::int64_t>("int64"); }

// A handful of big random lengths (one case per rank at most), all operators, against the
// scalar kernel and the oracle; plus lengths around powers of two, where the strata of
// every register width meet the clipped edge.
BOOST_AUTO_TEST_CASE(big_random_lengths)
{
    std::mt19937_64 rng(20240611);
    int bad = 0;
    for (int c = 0; c < 4; ++c) {
        // One length in (2^22, 2^22 + 2^20] (its cover, level 23, one more than the powers of two
        // below reach: 2^21 + 1), three of 10^5..10^6.
        const std::uint64_t n =
            c == 0 ? (std::uint64_t{1} << 22) + 1 + rng() % (std::uint64_t{1} << 20) : 100'000 + rng() % 900'001;
        const std::size_t offset = rng() % 64;
        if (!testing::dealt_here(static_cast<std::uint64_t>(c))) {
            continue;
        }
        auto run = [&]<class T>(T, const char* type) {
            const std::string t = type;
            const auto ps = values_for<T>(ops::builtin_kind::plus, 50 + c, n + 64);
            bad += check_length(ps, offset, n, ops::plus{}, true, (t + " plus").c_str());
            bad += check_length(ps, offset, n, ops::min{}, true, (t + " min").c_str());
            bad += check_length(ps, offset, n, ops::max{}, true, (t + " max").c_str());
            const auto ms = values_for<T>(ops::builtin_kind::multiplies, 60 + c, n + 64);
            bad += check_length(ms, offset, n, ops::multiplies{}, true, (t + " multiplies").c_str());
        };
        switch (c) {
        case 0: run(double{}, "double"); break;
        case 1: run(float{}, "float"); break;
        case 2: run(std::int32_t{}, "int32"); break;
        default: run(std::int64_t{}, "int64"); break;
        }
        BOOST_TEST_MESSAGE("big case " << c << " N=" << n << " offset=" << offset);
    }
    const auto pool = values_for<double>(ops::builtin_kind::plus, 99, (std::uint64_t{1} << 21) + 64);
    std::size_t k = 0;
    for (unsigned e = 5; e <= 21; ++e) {
        for (const std::int64_t d : {-1, 0, 1}) {
            const std::uint64_t n = (std::uint64_t{1} << e) + static_cast<std::uint64_t>(d);
            if (n + 64 <= pool.size() && testing::dealt_here(k++)) {
                bad += check_length(pool, e % 7, n, ops::plus{}, true, "double plus 2^e+-1");
            }
        }
    }
    BOOST_CHECK_MESSAGE(bad == 0, bad << " mismatches on big lengths");
}

// Generic lambdas: the header-only SIMD path of every supported architecture, and
// kernel::best (which takes that path for any operator callable on batches), equal the
// scalar kernel and the oracle.
BOOST_AUTO_TEST_CASE(generic_lambdas)
{
    if (world().rank() != 0) {
        return; // cheap, but no need to repeat it on every rank
    }
    constexpr std::size_t max_len = 700;
    std::mt19937_64 rng(3);
    std::vector<std::size_t> offsets(max_len + 1);
    for (auto& o : offsets) {
        o = rng() % 64;
    }
    const auto d = testing::mixed_values(5, max_len + 64, false);
    const std::vector<float> f(d.begin(), d.end());
    std::vector<std::int32_t> i32(max_len + 64);
    std::vector<std::int64_t> i64(max_len + 64);
    for (std::size_t i = 0; i < i32.size(); ++i) {
        i32[i] = static_cast<std::int32_t>(rng() % 201) - 100;
        i64[i] = static_cast<std::int64_t>(rng() % 201) - 100;
    }
    auto affine = [](auto a, auto b) {
        using V = decltype(a);
        return a * V(0.5) + b * V(1.5);
    };
    auto skew = [](auto a, auto b) {
        using V = decltype(a);
        return a - b * V(2);
    };

    struct arch_run {
        const char* name;
        void (*run)(kernel_tests::generic_inputs&);
    };
    const arch_run runs[] = {{"sse2", kernel_tests::run_generic_sse2},
                             {"avx2", kernel_tests::run_generic_avx2},
                             {"avx512f", kernel_tests::run_generic_avx512f}};
    auto check_type = [&]<class T>(const std::vector<T>& data, auto op, kernel_tests::generic_case<T>& c,
                                   const std::vector<T>& simd_out, const std::vector<T>& scalar_out,
                                   const char* arch) {
        int bad = 0;
        for (std::size_t n = 1; n <= max_len; ++n) {
            const T* first = data.data() + offsets[n];
            const std::vector<T> xs(first, first + n);
            const T want = testing::oracle_reduce(xs, op);
            const T best = kernel::best::reduce_node(first, n, op);
            if (!same_bits(simd_out[n], want) || !same_bits(scalar_out[n], want) || !same_bits(best, want)) {
                if (bad++ < 3) {
                    BOOST_ERROR(arch << " generic lambda N=" << n << ": simd " << show(simd_out[n]) << " scalar "
                                     << show(scalar_out[n]) << " best " << show(best) << " oracle " << show(want));
                }
            }
        }
        (void)c;
        return bad;
    };
    for (const auto& r : runs) {
        if (!kernel::simd_supported(r.name)) {
            BOOST_TEST_MESSAGE("generic lambdas: " << r.name << " not supported by this CPU, skipped");
            continue;
        }
        std::vector<double> sd(max_len + 1), cd(max_len + 1);
        std::vector<float> sf(max_len + 1), cf(max_len + 1);
        std::vector<std::int32_t> si(max_len + 1), ci(max_len + 1);
        std::vector<std::int64_t> sl(max_len + 1), cl(max_len + 1);
        kernel_tests::generic_inputs in;
        in.f64 = {d.data(), offsets.data(), max_len, sd.data(), cd.data()};
        in.f32 = {f.data(), offsets.data(), max_len, sf.data(), cf.data()};
        in.i32 = {i32.data(), offsets.data(), max_len, si.data(), ci.data()};
        in.i64 = {i64.data(), offsets.data(), max_len, sl.data(), cl.data()};
        r.run(in);
        int bad = check_type(d, affine, in.f64, sd, cd, r.name);
        bad += check_type(f, affine, in.f32, sf, cf, r.name);
        bad += check_type(i32, skew, in.i32, si, ci, r.name);
        bad += check_type(i64, skew, in.i64, sl, cl, r.name);
        BOOST_CHECK_MESSAGE(bad == 0, r.name << ": " << bad << " generic-lambda mismatches");
    }
}

// Rows of k values: every column through the same tree, equal to the scalar kernel run on
// that column alone. Compile-time rows (std::array through kernel::best, precompiled and
// header-only) and runtime widths (kernel::rows).
BOOST_AUTO_TEST_CASE(rows_of_values)
{
    std::mt19937_64 rng(11);
    int bad = 0;
    auto column_tree = [](const double* rows, std::uint64_t n, std::size_t k, std::size_t c, auto op) {
        std::vector<double> col(n);
        for (std::uint64_t i = 0; i < n; ++i) {
            col[i] = rows[i * k + c];
        }
        return kernel::scalar::reduce_node(col.data(), n, op);
    };
    auto affine = [](auto a, auto b) {
        using V = decltype(a);
        return a * V(0.5) + b * V(1.5);
    };
    for (std::uint64_t n = 1; n <= 300; ++n) {
        if (!testing::dealt_here(n)) {
            continue;
        }
        // std::array<double, 5>: precompiled row kernel (plus) and the header one (lambda)
        const auto flat = testing::mixed_values(n, n * 5, true);
        std::vector<std::array<double, 5>> rows(n);
        std::memcpy(rows.data(), flat.data(), flat.size() * sizeof(double));
        ops::columnwise<ops::plus> sum;
        ops::columnwise<decltype(affine)> mix{affine};
        const auto got_sum = kernel::best::reduce_node(rows.data(), n, sum);
        const auto got_mix = kernel::best::reduce_node(rows.data(), n, mix);
        const auto scalar_mix = kernel::scalar::reduce_node(rows.data(), n, mix);
        for (std::size_t c = 0; c < 5; ++c) {
            bad += !same_bits(got_sum[c], column_tree(flat.data(), n, 5, c, ops::plus{}));
            bad += !same_bits(got_mix[c], column_tree(flat.data(), n, 5, c, affine));
            bad += !same_bits(scalar_mix[c], got_mix[c]);
        }
        // runtime widths, including ones that leave a partial register
        for (const std::size_t k : {1, 3, 8, 17}) {
            const auto data = testing::mixed_values(n * 31 + k, n * k, false);
            std::vector<double> out(k);
            kernel::rows<xsimd::sse2>::reduce(data.data(), n, k, affine, out.data());
            for (std::size_t c = 0; c < k; ++c) {
                bad += !same_bits(out[c], column_tree(data.data(), n, k, c, affine));
            }
        }
        (void)rng;
    }
    BOOST_CHECK_MESSAGE(bad == 0, bad << " row mismatches");
}

// Types and operators outside the precompiled set: unsigned lanes take the header-only
// SIMD path, types xsimd cannot swizzle (long long, short) and operators that opt out of
// batches (kernel::allow_simd) take kernel::scalar; all equal the scalar kernel.
BOOST_AUTO_TEST_CASE(other_types_and_opt_out)
{
    if (world().rank() != 0) {
        return;
    }
    std::mt19937_64 rng(5);
    int bad = 0;
    auto run = [&]<class T>(T, auto op) {
        std::vector<T> xs(600);
        for (auto& x : xs) {
            x = static_cast<T>(rng() % 1000);
        }
        for (std::uint64_t n = 1; n <= 500; n += 3) {
            bad += !same_bits(kernel::best::reduce_node(xs.data() + n % 11, n, op),
                              kernel::scalar::reduce_node(xs.data() + n % 11, n, op));
        }
    };
    auto skew = [](auto a, auto b) { return a - b - b; };
    run(std::uint32_t{}, ops::plus{});
    run(std::uint32_t{}, skew);
    run(std::uint64_t{}, ops::multiplies{});
    run(std::uint64_t{}, skew);
    run(static_cast<long long>(0), ops::plus{});
    run(static_cast<short>(0), ops::max{});
    run(double{}, max_by_branch{});
    BOOST_CHECK_MESSAGE(bad == 0, bad << " mismatches outside the precompiled set");
}

// A generic lambda that does not compile for batches (a ?: on a comparison) is not opted in to
// SIMD, so kernel::best calls it with T only: it compiles (before, it failed inside xsimd) and
// gives the oracle's bits, for nodes and rows. An operator opted in by kernel::allow_simd is
// called with batches (counted), with the same bits.
BOOST_AUTO_TEST_CASE(generic_lambda_scalar_unless_opted_in)
{
    if (world().rank() != 0) {
        return;
    }
    const auto pick = [](auto a, auto b) { return a < b ? b : a; };
    std::mt19937_64 rng(6);
    std::vector<double> xs(1100);
    for (auto& x : xs) {
        x = std::ldexp(static_cast<double>(rng() % 2000) - 1000.0, static_cast<int>(rng() % 20) - 10);
    }
    counted_max::batch_calls = 0;
    counted_max counted;
    int bad = 0;
    for (std::uint64_t n : {1u, 15u, 16u, 17u, 100u, 1000u}) {
        const std::vector<double> node(xs.begin() + 3, xs.begin() + 3 + static_cast<std::ptrdiff_t>(n));
        const double want = testing::oracle_reduce(node, pick);
        bad += !same_bits(kernel::best::reduce_node(xs.data() + 3, n, pick), want);
        bad += !same_bits(kernel::best::reduce_node(xs.data() + 3, n, counted), want);
    }
    BOOST_CHECK_EQUAL(bad, 0);
    BOOST_CHECK_GT(counted_max::batch_calls, 0);
    // Rows of 3 under the lambda: column c is the tree over column c.
    std::array<double, 3> out{};
    kernel::reduce_rows<xsimd::default_arch>(xs.data(), 300, 3, pick, out.data());
    for (std::size_t c = 0; c < 3; ++c) {
        std::vector<double> column;
        for (std::size_t j = 0; j < 300; ++j) {
            column.push_back(xs[j * 3 + c]);
        }
        BOOST_CHECK(same_bits(out[c], testing::oracle_reduce(column, pick)));
    }
}

BOOST_AUTO_TEST_SUITE_END()

// What kernel::best picks: the best supported architecture, or the cap in
// TREEFOLD_KERNEL_ARCH (the ctest variants cap it at avx2 and sse2 to run the fallbacks).
BOOST_AUTO_TEST_SUITE(dispatch)

BOOST_AUTO_TEST_CASE(picks_supported_arch)
{
    const std::string picked = kernel::best_arch_name();
    BOOST_TEST_MESSAGE("kernel::best uses " << picked);
    BOOST_CHECK(kernel::simd_supported(picked.c_str()));
    if (const char* cap = std::getenv("TREEFOLD_KERNEL_ARCH")) {
        if (kernel::simd_supported(cap)) {
            BOOST_CHECK_EQUAL(picked, std::string(cap));
        }
    } else if (kernel::simd_supported("avx512f")) {
        BOOST_CHECK_EQUAL(picked, "avx512f");
    }
}

BOOST_AUTO_TEST_CASE(best_equals_scalar)
{
    if (world().rank() != 0) {
        return;
    }
    int bad = 0;
    const auto xs = testing::mixed_values(77, 5000, true);
    std::vector<std::int64_t> is(5000);
    for (std::size_t i = 0; i < is.size(); ++i) {
        const double v = xs[i] * 1e-10;
        is[i] = std::isfinite(v) ? static_cast<std::int64_t>(v) : 0; // casting +-Inf is undefined (UBSan)
    }
    for (std::uint64_t n = 1; n <= 4000; n += 7) {
        ops::plus p;
        ops::max m;
        ops::multiplies t;
        bad += !same_bits(kernel::best::reduce_node(xs.data() + n % 13, n, p),
                          kernel::scalar::reduce_node(xs.data() + n % 13, n, p));
        bad += !same_bits(kernel::best::reduce_node(xs.data() + n % 5, n, m),
                          kernel::scalar::reduce_node(xs.data() + n % 5, n, m));
        bad += !same_bits(kernel::best::reduce_node(is.data() + n % 3, n, t),
                          kernel::scalar::reduce_node(is.data() + n % 3, n, t));
    }
    BOOST_CHECK_MESSAGE(bad == 0, bad << " mismatches of kernel::best (" << kernel::best_arch_name() << ")");
}

BOOST_AUTO_TEST_SUITE_END()
