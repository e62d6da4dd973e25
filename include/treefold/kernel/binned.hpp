#pragma once
/// A binned (pre-rounded) accumulator for the accurate sum of doubles: the element type
/// binned<K>, its merge ops::binned_plus, and the local kernels that deposit doubles into it.
///
/// The exponent range is cut into bins of W = 40 bits on a fixed grid: bin b has the unit
/// u_b = 2^(1025 - 40 (b + 1)) (b = 0 .. 51; the bins' primaries stay normal doubles). An
/// accumulator keeps K consecutive bins ("folds") below a top bin i chosen from the largest
/// magnitude m it has seen: the largest i with m < 2^(1024 - 40 i). Depositing x rounds it,
/// fold by fold, to a multiple of the fold's unit by adding it to a primary 1.5 * 2^(e)
/// (e = log2 u + 52) and subtracting again; the rounded part stays in the primary, the
/// remainder (exact) goes to the next fold, and the last fold's remainder is dropped. The
/// lowest significand bit of each remainder is set first, so no value is ever halfway
/// between two multiples of a unit: each fold's share of x is a function of x and the bin
/// alone, never of what the primary already holds. Every share is a multiple of the unit
/// added exactly, so the accumulator is the exact sum of the shares, whatever the order of
/// the deposits and merges: ops::binned_plus is exactly associative and commutative, and a
/// rank may deposit its block linearly in SIMD lanes and still give the bits of any tree.
///
/// Primaries drift by at most 2^(e-13) per deposit; each is kept as its offset from the
/// bin constant in [-q/2, q/2) (q = 2^(e-2)) plus a carry counting whole q's, renormalised
/// after every deposit (scalar) or every 2048 values (SIMD lanes) — the canonical form makes
/// equal sums equal bytes. Accumulators with different top bins merge at the higher one (the
/// lower one's folds shift down, its lowest ones dropped, which is exactly what depositing its
/// values at the higher top would have kept). The top bin 0 (values of 2^984 and more) is held
/// scaled by 2^-64, so sums beyond DBL_MAX that cancel are still exact.
///
/// Error: each value loses less than one unit of the last fold, 2^(1 - 40 (K - 1)) m, and the
/// final rounding to double (an exact expansion of the folds, summed from its smallest
/// part) adds at most one ulp:
///     |binned sum - exact sum| <= ulp(result) + N max(2^(1 - 40 (K - 1)) max|x_i|, 2^-1055),
/// i.e. 2^-79 N max|x_i| for K = 3: within one ulp of the correctly rounded sum while
/// N max|x_i| / |sum| stays below about 2^26 (K = 2: the bound is 2^-39 N max|x_i|, no
/// better than a plain sum's worst case). Non-finite inputs are summed on the side in plain
/// arithmetic and returned instead of the finite sum, as a plain sum would (Inf, -Inf and
/// NaN; Inf - Inf gives NaN). A finite sum beyond DBL_MAX rounds to +-Inf.

#include "treefold/config.hpp"
#include "treefold/kernel/accurate.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace treefold {

namespace kernel::detail {

inline constexpr int binned_bin_bits = 40;     ///< W: bits per bin
inline constexpr int binned_grid_top = 1025;   ///< bin b's unit is 2^(grid_top - W (b + 1))
inline constexpr int binned_bin_count = 52;    ///< bins 0 .. 51 (their primaries are normal)
inline constexpr int binned_top_shift = 64;    ///< top bin 0 is held scaled by 2^-64
inline constexpr std::uint64_t binned_chunk = 2048; ///< values per lane renormalisation

/// 2^e for a normal exponent e.
constexpr double binned_pow2(int e) noexcept
{
    return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);
}

/// Exponent of the primary's bin constant 1.5 * 2^e for fold k below top bin `top` (scaled
/// for top bin 0).
constexpr int binned_primary_exponent(int top, int k) noexcept
{
    return binned_grid_top - binned_bin_bits * (top + k + 1) + 52 - (top == 0 ? binned_top_shift : 0);
}

/// The bin constant of fold k below top bin `top`: primaries hold it plus their offset.
constexpr double binned_base(int top, int k) noexcept { return 1.5 * binned_pow2(binned_primary_exponent(top, k)); }

/// The carry quantum q of fold k below top bin `top` (a quarter of the bin constant's power of two).
constexpr double binned_quantum(int top, int k) noexcept { return binned_pow2(binned_primary_exponent(top, k) - 2); }

/// The top bin for values of magnitude up to m (finite, > 0): the largest i with
/// m < 2^(1024 - 40 i), at most binned_bin_count - K so that every fold exists.
template <int K>
constexpr int binned_top_for(double m) noexcept
{
    const int biased = static_cast<int>((std::bit_cast<std::uint64_t>(m) >> 52) & 0x7ff);
    const int e = biased == 0 ? -1023 : biased - 1023; // floor(log2 m); subnormals all clamp below
    return std::min((binned_grid_top - 2 - e) / binned_bin_bits, binned_bin_count - K);
}

/// x with its lowest significand bit set: never halfway between two multiples of a unit.
constexpr double binned_odd(double x) noexcept
{
    return std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) | 1U);
}

/// s + x for the sums of non-finite values, any NaN made the default quiet NaN: a NaN's sign
/// and payload depend on the operands' order, which a compiler may swap.
inline double binned_special_sum(double s, double x) noexcept
{
    const double out = s + x;
    return out == out ? out : std::numeric_limits<double>::quiet_NaN();
}

/// Moves whole quanta of `offset` into `carry`: offset ends in [-q/2, q/2) (both exact).
inline void binned_renormalise(double& offset, double& carry, double q) noexcept
{
    const double k = std::floor(offset * (1.0 / q) + 0.5); // q is a power of two
    offset -= k * q;
    carry += k;
}

} // namespace kernel::detail

/// A binned accumulator of K folds (K = 2 .. 4; see the file comment). Trivially copyable
/// (travels as raw bytes through every exchange); `binned<K>{}` is the empty sum.
template <int K>
struct binned {
    static_assert(K >= 2 && K <= 4, "treefold::binned: K must be 2, 3 or 4");

    double offset[K];  ///< fold k's primary minus its bin constant, in [-q_k/2, q_k/2)
    double carry[K];   ///< fold k's whole quanta q_k moved out of the primary (an integer)
    double special;    ///< the plain sum of the non-finite values deposited (+0 if none)
    std::int64_t top;  ///< 1 + the top bin; 0 while no finite non-zero value was deposited

    /// The accumulator of one value.
    static binned of(double x) noexcept
    {
        binned b{};
        b.deposit(x);
        return b;
    }

    /// Adds x (one value at a time: the reference the SIMD kernels match bit for bit).
    void deposit(double x) noexcept
    {
        using namespace kernel::detail;
        if (!(x - x == 0.0)) { // +-Inf, NaN
            special = binned_special_sum(special, x);
            return;
        }
        if (x == 0.0) {
            return;
        }
        raise_top(binned_top_for<K>(std::fabs(x)));
        const int t = static_cast<int>(top - 1);
        double r = t == 0 ? x * binned_pow2(-binned_top_shift) : x;
        for (int k = 0; k < K; ++k) {
            const double base = binned_base(t, k);
            const double p = base + offset[k];
            const double pn = p + binned_odd(r);
            r -= pn - p;
            offset[k] = pn - base;
            binned_renormalise(offset[k], carry[k], binned_quantum(t, k));
        }
    }

    /// Re-expresses the sum with top bin t (<= the current one): the folds shift down, the
    /// lowest ones dropped. Nothing changes if t is not above the current top.
    void raise_top(int t) noexcept
    {
        if (top == 0) {
            top = t + 1;
            return;
        }
        const int old = static_cast<int>(top - 1);
        if (t >= old) {
            return;
        }
        const int shift = old - t;
        const double scale = t == 0 ? kernel::detail::binned_pow2(-kernel::detail::binned_top_shift) : 1.0;
        for (int k = K - 1; k >= 0; --k) {
            offset[k] = k >= shift ? offset[k - shift] * scale : 0.0;
            carry[k] = k >= shift ? carry[k - shift] : 0.0;
        }
        top = t + 1;
    }

    /// The sum rounded to double (see the file comment for the bound): the folds' quanta and
    /// offsets as an exact expansion, summed from its smallest part.
    double to_double() const noexcept
    {
        using namespace kernel::detail;
        if (!(special == 0.0)) {
            return special;
        }
        if (top == 0) {
            return 0.0;
        }
        const int t = static_cast<int>(top - 1);
        double parts[2 * K];
        int count = 0;
        auto grow = [&](double v) {
            for (int j = 0; j < count; ++j) {
                double s;
                double e;
                two_sum(v, parts[j], s, e);
                parts[j] = e;
                v = s;
            }
            parts[count++] = v;
        };
        for (int k = 0; k < K; ++k) {
            grow(carry[k] * binned_quantum(t, k));
            grow(offset[k]);
        }
        double sum = 0.0;
        for (int j = 0; j < count; ++j) {
            sum += parts[j];
        }
        return t == 0 ? sum * binned_pow2(binned_top_shift) : sum;
    }
};

namespace ops {

/// The merge of two binned accumulators: exactly the accumulator of both inputs' values
/// (associative and commutative in its bits, unlike any floating-point addition).
struct binned_plus {
    /// Order-free (detail/records.hpp): the native exchange may reduce it commutatively.
    static constexpr bool order_free = true;
    /// a + b.
    template <int K>
    binned<K> operator()(const binned<K>& a, const binned<K>& b) const noexcept
    {
        binned<K> out = a;
        out.special = kernel::detail::binned_special_sum(a.special, b.special);
        if (b.top == 0) {
            return out;
        }
        binned<K> other = b;
        const int t = static_cast<int>(a.top == 0 ? b.top - 1 : std::min(a.top, b.top) - 1);
        out.raise_top(t);
        other.raise_top(t);
        for (int k = 0; k < K; ++k) {
            out.offset[k] += other.offset[k]; // both in [-q/2, q/2): exact
            out.carry[k] += other.carry[k];
            kernel::detail::binned_renormalise(out.offset[k], out.carry[k], kernel::detail::binned_quantum(t, k));
        }
        return out;
    }
};

} // namespace ops

namespace kernel {

/// A binned-sum kernel policy for binned_reducer: `static binned<K> sum(const double*,
/// std::uint64_t len)` deposits the len doubles. This one is the reference, one
/// binned<K>::deposit at a time.
template <int K>
struct binned_scalar {
    /// The kernel's name in messages and benchmark rows.
    static constexpr const char* name = "scalar";
    /// The accumulator of first[0, len).
    static binned<K> sum(const double* first, std::uint64_t len) noexcept
    {
        binned<K> acc{};
        for (std::uint64_t j = 0; j < len; ++j) {
            acc.deposit(first[j]);
        }
        return acc;
    }
};

/// The SIMD binned-sum kernel on xsimd architecture Arch: chunks of 2048 values, each
/// scanned for its largest magnitude, then deposited linearly into independent register
/// lanes whose folds join the accumulator once per chunk. The same bits as binned_scalar
/// (the deposits' order does not matter). Precompiled for sse2, avx2 and avx512f with K = 2
/// and 3 in libtreefold.a (src/kernel/binned_ARCH.cpp); call it only where simd_supported<Arch>().
template <class Arch, int K>
struct binned_simd {
    /// The architecture's xsimd name.
    static constexpr const char* name = Arch::name();
    /// The same contract and bits as binned_scalar<K>::sum.
    static binned<K> sum(const double* first, std::uint64_t len);
};

/// The default binned-sum kernel: binned_simd of the architecture kernel::best uses
/// (best_arch_name(); TREEFOLD_KERNEL_ARCH caps it as there). K = 2 or 3.
template <int K>
struct binned_best {
    /// The kernel's name in messages and benchmark rows.
    static constexpr const char* name = "best";
    /// The same contract and bits as binned_scalar<K>::sum.
    static binned<K> sum(const double* first, std::uint64_t len);
};

namespace detail {

/// The register part of binned_simd (src/kernel/binned_ARCH.cpp, built with the
/// architecture's flags), on `step` values at a time (lanes x unrolled accumulators).
struct binned_lane_kernel {
    /// max |x| over p[0, len) (len a multiple of step): +Inf if a value is infinite; a NaN
    /// may be missed (see deposit).
    double (*scan)(const double* p, std::uint64_t len);
    /// Deposits p[0, len) (len a multiple of step, at most binned_chunk) into `step` lane
    /// accumulators whose fold k starts at primary base[k], the values multiplied by
    /// `scale` first; writes the sum over the lanes of fold k's primary minus base[k] to
    /// out[k] (exact; NaN if a value was NaN).
    void (*deposit)(const double* p, std::uint64_t len, const double* base, double scale, double* out);
    std::size_t step; ///< values per step (at most 64)
};

/// binned_lane_kernel for Arch and K (defined in src/kernel/binned_ARCH.cpp).
template <class Arch, int K>
binned_lane_kernel binned_lanes() noexcept;

/// The accumulator of first[0, len) through the lane kernel `k` (src/kernel/binned_dispatch.cpp).
template <int K>
binned<K> binned_sum_lanes(const binned_lane_kernel& k, const double* first, std::uint64_t len);

} // namespace detail

} // namespace kernel

} // namespace treefold
