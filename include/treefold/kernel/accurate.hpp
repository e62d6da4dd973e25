#pragma once
/// An accurate reproducible sum: the double-double element type, its error-free addition
/// ops::accurate_plus, and the local kernel that sums doubles as double-doubles.
///
/// A double_double {hi, lo} stands for the unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
/// accurate_plus adds two of them with error-free transformations: TwoSum of the high parts,
/// the low parts added to its error, and a TwoSum to renormalise. Its error is at most
/// (3 + 2u) u^2 (|a.hi| + |b.hi|) (u = 2^-53; derivation in doc/design.md, "An accurate
/// sum"): not a relative error bound under cancellation, but exactly what a sum's error bound
/// needs, at 14 additions where the "accurate" double-word addition with a relative bound
/// takes 20 (measured 22 % slower in this kernel). It is built from additions only, so FMA contraction cannot change it; -ffast-math would cancel
/// the error terms (config.hpp refuses it; under TREEFOLD_ALLOW_FAST_MATH this sum is no
/// more accurate than a plain one).
///
/// Along treefold's fixed tree of depth h = ceil(log2 N) the sum of N doubles lifted to
/// {x, 0} has an absolute error of at most about 3 h u^2 sum|x_i| before the final rounding
/// to double (to_double), so the rounded result is within about one ulp of the correctly
/// rounded sum whenever the condition number sum|x_i| / |sum x_i| stays below about
/// 1 / (3 h u) (1e14 at N = 2^25); beyond that the error bound above still holds (doc/design.md,
/// "An accurate sum"). Like every treefold operator it gives the same bits for every process
/// count, layout, exchange and kernel, because the tree is fixed.

#include "treefold/config.hpp"
#include "treefold/kernel/dispatch.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

namespace treefold {

/// A double-double: the unevaluated sum hi + lo (trivially copyable: travels as 16 raw bytes
/// through every exchange, the native MPI_Op one included).
struct double_double {
    // No default member initialisers: `double_double{}` is {0, 0}, and arrays made for
    // overwriting stay untouched (accurate_reducer's anchors).
    double hi; ///< the leading part: the sum rounded to double
    double lo; ///< what hi leaves out (|lo| <= ulp(hi) / 2 once normalised)

    /// A double lifted exactly: {x, +0.0}.
    static constexpr double_double lift(double x) noexcept { return {x, 0.0}; }
    /// The value rounded to double: hi, which accurate_plus keeps equal to round(hi + lo).
    constexpr double to_double() const noexcept { return hi; }
};

namespace kernel::detail {

/// s + e = a + b exactly, s = fl(a + b) (Knuth's TwoSum; any operands, no branch).
template <class V>
constexpr void two_sum(const V& a, const V& b, V& s, V& e)
{
    s = a + b;
    const V b_virtual = s - a;
    const V a_virtual = s - b_virtual;
    e = (a - a_virtual) + (b - b_virtual);
}

/// The double-double addition on scalars or xsimd batches of the parts (lane by lane the
/// same bits): {ah, al} + {bh, bl} -> {h, l}. A non-finite sum of the high parts
/// (an infinity or NaN among the inputs, or overflow) is returned as {that sum, 0}, so
/// infinities behave as in a plain sum instead of turning into NaN through the error terms.
template <class V>
constexpr void add_dd(const V& ah, const V& al, const V& bh, const V& bl, V& h, V& l)
{
    V s;
    V e;
    two_sum(ah, bh, s, e);
    const V w = e + (al + bl);
    V s2;
    V l2;
    two_sum(s, w, s2, l2);
    // {s, 0} instead where s is not finite, and where the result is zero from zero high
    // parts (s keeps IEEE's sign: -0 + -0 = -0; the error terms would give +0). Only ==
    // tests NaN the same way on scalars and on every xsimd architecture (its != on batches
    // is ordered: false for NaN); s - s == 0 is false exactly for +-Inf and NaN.
    if constexpr (std::is_arithmetic_v<V>) {
        const bool keep = s - s == V(0) && (s != V(0) || s2 != V(0));
        h = keep ? s2 : s;
        l = keep ? l2 : V(0);
    } else {
        const auto keep = ((s - s) == V(0.0)) & ((s != V(0.0)) | (s2 != V(0.0)));
        h = select(keep, s2, s); // xsimd's, found by ADL
        l = select(keep, l2, V(0.0));
    }
}

/// add_dd({a, +0}, {b, +0}) in fewer steps, with the same bits: the pair of two lifted
/// leaves is their TwoSum. (For finite s != 0, e is the exact error, so w = e + (0 + 0) and
/// the renormalising TwoSum keep {s, e + 0}; a zero or non-finite s gives {s, +0} in both.)
/// e + 0 turns -0 into +0 as add_dd's w does.
template <class V>
constexpr void add_lifted(const V& a, const V& b, V& h, V& l)
{
    V e;
    two_sum(a, b, h, e);
    if constexpr (std::is_arithmetic_v<V>) {
        l = h - h == V(0) ? e + V(0) : V(0);
    } else {
        l = select((h - h) == V(0.0), e + V(0.0), V(0.0));
    }
}

/// two_sum with half of its additions through `add` and `sub`, which must give the bits of
/// + and - (the SIMD kernel passes fused multiply-adds by 1.0, run on other units than the
/// adders): the same steps, the same bits.
template <class V, class Add, class Sub>
constexpr void two_sum_split(const V& a, const V& b, V& s, V& e, Add add, Sub sub)
{
    s = a + b;
    const V b_virtual = sub(s, a);
    const V a_virtual = s - b_virtual;
    e = add(sub(a, a_virtual), b - b_virtual);
}

/// add_dd without its guards: two TwoSums and two additions (14 operations instead of 22).
/// The same bits as add_dd wherever ah + bh is finite and not both high parts are -0: there
/// add_dd keeps {s2, l2}, or gives {s, +0} with s = +0, which is {s2, l2} too. Elsewhere the
/// error terms turn a non-finite s into a NaN high part, which stays NaN through every later
/// unchecked addition, and two -0 high parts give +0, which differs from add_dd's -0 only
/// through subtrees of -0 leaves alone (doc/design.md, "The unchecked fast path").
/// `add` and `sub` as in two_sum_split.
template <class V, class Add = std::plus<>, class Sub = std::minus<>>
constexpr void add_dd_unchecked(const V& ah, const V& al, const V& bh, const V& bl, V& h, V& l, Add add = {}, Sub sub = {})
{
    V s;
    V e;
    two_sum_split(ah, bh, s, e, add, sub);
    two_sum_split(s, add(e, al + bl), h, l, add, sub);
}

/// add_lifted without its guard: where a + b is finite its bits; elsewhere l is NaN.
template <class V, class Add = std::plus<>, class Sub = std::minus<>>
constexpr void add_lifted_unchecked(const V& a, const V& b, V& h, V& l, Add add = {}, Sub sub = {})
{
    V e;
    two_sum_split(a, b, h, e, add, sub);
    l = e + V(0.0);
}

} // namespace kernel::detail

namespace ops {

/// The accurate (compensated) sum of double-doubles: left + right with error-free
/// transformations (see the file comment). Not associative in its bits, like any floating
/// point addition; treefold's fixed tree makes it reproducible.
struct accurate_plus {
    /// {a.hi, a.lo} + {b.hi, b.lo}, error at most (3 + 2u) u^2 (|a.hi| + |b.hi|) for finite sums.
    constexpr double_double operator()(const double_double& a, const double_double& b) const noexcept
    {
        double_double out{};
        kernel::detail::add_dd(a.hi, a.lo, b.hi, b.lo, out.hi, out.lo);
        return out;
    }
};

} // namespace ops

namespace kernel {

/// The value of the tree node over doubles first[0, len), each leaf lifted to {x, +0.0} and
/// combined with ops::accurate_plus: the bits of kernel::scalar over the lifted values,
/// without storing them. len > 0.
inline double_double accurate_node_scalar(const double* first, std::uint64_t len)
{
    const ops::accurate_plus op;
    value_stack<double_double> stack;
    for (std::uint64_t j = 0; j < len; ++j) {
        double_double acc = double_double::lift(first[j]);
        for (int pairs = std::countr_zero(j + 1); pairs > 0; --pairs) {
            acc = op(stack.top(), acc);
            stack.pop();
        }
        stack.push(acc);
    }
    double_double acc = stack.pop();
    while (!stack.empty()) {
        acc = op(stack.top(), acc);
        stack.pop();
    }
    return acc;
}

/// A lifted-sum kernel policy for accurate_reducer: `static double_double sum(const double*,
/// std::uint64_t len)` is the tree node over the lifted doubles (len > 0). This one is the
/// reference, one leaf at a time.
struct accurate_scalar {
    /// The kernel's name in messages and benchmark rows.
    static constexpr const char* name = "scalar";
    /// accurate_node_scalar.
    static double_double sum(const double* first, std::uint64_t len) { return accurate_node_scalar(first, len); }
};

/// The SIMD lifted-sum kernel on xsimd architecture Arch: whole blocks of W^(s+1) values
/// (W lanes; up to 512 or more values) fold in registers with the butterfly of kernel::simd
/// (kernel/simd_impl.hpp) on the high and the low parts alike, so each register lane
/// computes the same tree nodes as the scalar kernel; the blocks' values and the clipped
/// right edge (through smaller blocks, then scalar) join as in the scalar kernel. Precompiled for sse2, avx2 and avx512f in
/// libtreefold.a (src/kernel/accurate_ARCH.cpp); call it only where simd_supported<Arch>().
template <class Arch>
struct accurate_simd {
    /// The architecture's xsimd name.
    static constexpr const char* name = Arch::name();
    /// The same contract and bits as accurate_scalar::sum.
    static double_double sum(const double* first, std::uint64_t len);
};

/// The default lifted-sum kernel: accurate_simd of the architecture kernel::best uses for
/// built-in operators (best_arch_name(); TREEFOLD_KERNEL_ARCH caps it as there).
struct accurate_best {
    /// The kernel's name in messages and benchmark rows.
    static constexpr const char* name = "best";
    /// The same contract and bits as accurate_scalar::sum.
    static double_double sum(const double* first, std::uint64_t len);
};

namespace detail {

/// The register part of accurate_simd<Arch> (src/kernel/accurate_ARCH.cpp, compiled with
/// the architecture's flags): for each stratum s = 1 .. levels, fold[s - 1] folds one block
/// of block[s - 1] = width^(s+1) values at p into `width` lane nodes (each over
/// block / width consecutive values), written to hi[] and lo[]; fold_in_cache[s - 1] does the
/// same with the same bits, faster on data in cache and slower on data streamed from memory.
struct accurate_block_kernel {
    static constexpr int max_levels = 16;
    /// Nodes up to this many values take fold_in_cache (1 MiB: Zen 4's L2 per core).
    static constexpr std::uint64_t in_cache_values = std::uint64_t{1} << 17;
    void (*fold[max_levels])(const double* p, double* hi, double* lo);          ///< per stratum
    void (*fold_in_cache[max_levels])(const double* p, double* hi, double* lo); ///< per stratum
    std::uint64_t block[max_levels];                                   ///< values per block
    int levels;                                                        ///< strata available
    std::size_t width;                                                 ///< lanes (at most 64)
};

/// accurate_block_kernel for Arch (defined in src/kernel/accurate_ARCH.cpp).
template <class Arch>
accurate_block_kernel accurate_blocks() noexcept;

/// The tree node over first[0, len) from whole blocks of the largest stratum of `k` that
/// fits, the rest likewise through the smaller ones, and what is shorter than every block
/// scalar.
double_double accurate_sum_blocks(const accurate_block_kernel& k, const double* first, std::uint64_t len);

} // namespace detail

} // namespace kernel

} // namespace treefold
