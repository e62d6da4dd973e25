#pragma once
/// Definition of kernel::simd<Arch>::reduce_node. Include it only in translation units
/// compiled with the flags of every architecture they instantiate (libtreefold's
/// src/kernel/simd_<arch>.cpp, or a user's own TU for an operator of their own).
///
/// Lane schedule (doc/design.md, "SIMD kernels"). A register holds W consecutive values.
/// `fold` takes W registers r_0..r_{W-1} and returns one register whose lane j is the tree
/// over the W lanes of r_j, computed as a butterfly: at stride h = 1, 2, ..., W/2 the
/// registers are paired (a, b) and
///     e = select(lane & h == 0, a, swizzle<lane ^ h>(b))
///     o = select(lane & h == 0, swizzle<lane ^ h>(a), b)
///     out = op(e, o)
/// so lane l of `out` is op(a_l, a_{l+h}) where bit h of l is clear and op(b_{l-h}, b_l)
/// where it is set: always left child, right child, in index order. After log2(W) strides
/// lane j holds r_j's node, so folding W folded registers climbs log2(W) more levels, and so
/// on ("strata"). Partial registers at the clipped right edge are folded with a validity
/// mask per lane: where the right child lies past the end the left child is copied
/// (pass-through), never combined with an invented identity.

#include "treefold/kernel/simd.hpp"

#include <xsimd/xsimd.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace treefold::kernel {

namespace simd_detail {

/// swizzle index generator: lane i reads lane i ^ H.
template <std::size_t H>
struct xor_lane {
    static constexpr unsigned get(unsigned i, unsigned) { return i ^ static_cast<unsigned>(H); }
};

/// select mask generator: lanes whose bit H is clear.
template <std::size_t H>
struct low_lane {
    static constexpr bool get(unsigned i, unsigned) { return (i & H) == 0; }
};

/// The operands of one butterfly step at stride H: e = the left children, o = the right
/// children (see the file comment). The generic version is xsimd::swizzle plus select;
/// the specialisations below do the same lane moves in one native instruction each where
/// xsimd 8.1 has no two-register permute (they never change a value, only move lanes).
template <class T, class Arch, std::size_t H>
struct butterfly {
    static constexpr bool uses_mask = true;
    using batch = xsimd::batch<T, Arch>;
    using index_batch = xsimd::batch<xsimd::as_unsigned_integer_t<T>, Arch>;
    template <class Mask>
    static void apply(const batch& a, const batch& b, const Mask& low, batch& e, batch& o)
    {
        constexpr auto swap = xsimd::make_batch_constant<index_batch, xor_lane<H>>();
        e = xsimd::select(low, a, xsimd::swizzle(b, swap));
        o = xsimd::select(low, xsimd::swizzle(a, swap), b);
    }
};

#if XSIMD_WITH_AVX512F
/// avx512f: e and o each in one non-destructive instruction: unpack for stride 1 (64-bit
/// lanes), a 128-bit block shuffle for the top stride, a two-source permute otherwise.
/// (Merge-masked one-register permutes also work, but destroy their source, and the
/// compiler then loads every input twice.)
template <class T, std::size_t H>
    requires(sizeof(T) == 8)
struct butterfly<T, xsimd::avx512f, H> {
    static constexpr bool uses_mask = false;
    using batch = xsimd::batch<T, xsimd::avx512f>;
    template <class Mask>
    static void apply(const batch& a, const batch& b, const Mask&, batch& e, batch& o)
    {
        const __m512d ad = bits(a);
        const __m512d bd = bits(b);
        if constexpr (H == 1) {
            e = from(_mm512_unpacklo_pd(ad, bd)); // a0 b0 a2 b2 ...
            o = from(_mm512_unpackhi_pd(ad, bd)); // a1 b1 a3 b3 ...
        } else if constexpr (H == 2) {
            // lanes 0..7 of a, 8..15 of b
            e = from(_mm512_permutex2var_pd(ad, _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), bd));
            o = from(_mm512_permutex2var_pd(ad, _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15), bd));
        } else {
            e = from(_mm512_shuffle_f64x2(ad, bd, 0x44)); // a0-3 b0-3
            o = from(_mm512_shuffle_f64x2(ad, bd, 0xEE)); // a4-7 b4-7
        }
    }
    static __m512d bits(const batch& x)
    {
        if constexpr (std::is_same_v<T, double>) {
            return x;
        } else {
            return _mm512_castsi512_pd(x);
        }
    }
    static batch from(__m512d x)
    {
        if constexpr (std::is_same_v<T, double>) {
            return x;
        } else {
            return _mm512_castpd_si512(x);
        }
    }
};

template <class T, std::size_t H>
    requires(sizeof(T) == 4)
struct butterfly<T, xsimd::avx512f, H> {
    static constexpr bool uses_mask = false;
    using batch = xsimd::batch<T, xsimd::avx512f>;
    /// Two-source permute indices: lane l of e takes a_l where bit H of l is clear and
    /// b_{l^H} (index 16 + (l^H)) where it is set; o takes a_{l^H} and b_l.
    static __m512i index(bool right)
    {
        alignas(64) std::int32_t idx[16];
        for (int l = 0; l < 16; ++l) {
            const bool high = (l & static_cast<int>(H)) != 0;
            const int partner = l ^ static_cast<int>(H);
            idx[l] = right ? (high ? 16 + l : partner) : (high ? 16 + partner : l);
        }
        return _mm512_load_si512(idx);
    }
    template <class Mask>
    static void apply(const batch& a, const batch& b, const Mask&, batch& e, batch& o)
    {
        const __m512 af = bits(a);
        const __m512 bf = bits(b);
        if constexpr (H == 8) {
            e = from(_mm512_shuffle_f32x4(af, bf, 0x44)); // a0-7 b0-7
            o = from(_mm512_shuffle_f32x4(af, bf, 0xEE)); // a8-15 b8-15
        } else {
            e = from(_mm512_permutex2var_ps(af, index(false), bf));
            o = from(_mm512_permutex2var_ps(af, index(true), bf));
        }
    }
    static __m512 bits(const batch& x)
    {
        if constexpr (std::is_same_v<T, float>) {
            return x;
        } else {
            return _mm512_castsi512_ps(x);
        }
    }
    static batch from(__m512 x)
    {
        if constexpr (std::is_same_v<T, float>) {
            return x;
        } else {
            return _mm512_castps_si512(x);
        }
    }
};
#endif

#if XSIMD_WITH_AVX2
/// avx2, 64-bit lanes: stride 1 is unpacklo/unpackhi, stride 2 a 128-bit half permute.
template <class T, std::size_t H>
    requires(sizeof(T) == 8)
struct butterfly<T, xsimd::avx2, H> {
    static constexpr bool uses_mask = false;
    using batch = xsimd::batch<T, xsimd::avx2>;
    template <class Mask>
    static void apply(const batch& a, const batch& b, const Mask&, batch& e, batch& o)
    {
        const __m256d ad = bits(a);
        const __m256d bd = bits(b);
        if constexpr (H == 1) {
            e = from(_mm256_unpacklo_pd(ad, bd)); // a0 b0 a2 b2
            o = from(_mm256_unpackhi_pd(ad, bd)); // a1 b1 a3 b3
        } else {
            e = from(_mm256_permute2f128_pd(ad, bd, 0x20)); // a0 a1 b0 b1
            o = from(_mm256_permute2f128_pd(ad, bd, 0x31)); // a2 a3 b2 b3
        }
    }
    static __m256d bits(const batch& x)
    {
        if constexpr (std::is_same_v<T, double>) {
            return x;
        } else {
            return _mm256_castsi256_pd(x);
        }
    }
    static batch from(__m256d x)
    {
        if constexpr (std::is_same_v<T, double>) {
            return x;
        } else {
            return _mm256_castpd_si256(x);
        }
    }
};
#endif

/// The main loop's register load. On avx512f it is two 256-bit loads joined: most input
/// is not 64-byte aligned (malloc returns 16-byte alignment), and then every 512-bit load
/// straddles two cache lines, which costs ~20 % when streaming from memory on this
/// machine (doc/performance.md). The lanes, and so the bits, are the same.
template <class T, class Arch>
xsimd::batch<T, Arch> stream_load(const T* p)
{
#if XSIMD_WITH_AVX512F
    if constexpr (std::is_same_v<Arch, xsimd::avx512f>) {
        const __m512i joined = _mm512_inserti64x4(
            _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))),
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p) + 1), 1);
        if constexpr (std::is_same_v<T, double>) {
            return _mm512_castsi512_pd(joined);
        } else if constexpr (std::is_same_v<T, float>) {
            return _mm512_castsi512_ps(joined);
        } else {
            return joined;
        }
    }
#endif
    return xsimd::batch<T, Arch>::load_unaligned(p);
}

/// The tree folder for one (T, Arch, Op): register stacks per stratum and the fold.
template <class T, class Arch, class Op>
class folder {
public:
    using batch = xsimd::batch<T, Arch>;
    static constexpr std::size_t width = batch::size;
    static constexpr unsigned width_log2 = static_cast<unsigned>(std::countr_zero(width));
    static_assert(std::has_single_bit(width) && width >= 2 && width <= 64);

    explicit folder(Op& op) : op_(op) { init_masks<1>(); }

    T run(const T* first, std::uint64_t len)
    {
        constexpr std::uint64_t group = std::uint64_t{width} * width;
        std::uint64_t i = 0;
        // The main loop folds `main_strata` strata per iteration (at least 16 registers),
        // so narrow registers do not spend their time on the stratum stacks; then whole
        // groups of W registers (W*W elements) fold into one stratum-1 register each.
        constexpr std::uint64_t big = elements_of<main_strata + 1>();
        for (; len - i >= big; i += big) {
            push(main_strata, fold_group<main_strata>(first + i));
        }
        for (; len - i >= group; i += group) {
            push(1, fold_group<1>(first + i));
        }
        // The rest (< W*W elements) is stratum 0: full registers, then at most one partial.
        const std::uint64_t rest = len - i;
        unsigned count = 0;
        for (std::uint64_t j = 0; j < rest; j += width, ++count) {
            if (rest - j >= width) {
                stack_[0][count] = batch::load_unaligned(first + i + j);
            } else {
                // Pad with a copy of a real element: padded lanes are never combined into
                // a result, but the operator still sees ordinary values there.
                alignas(Arch::alignment()) T tail[width];
                for (std::size_t l = 0; l < width; ++l) {
                    tail[l] = first[i + j + (l < rest - j ? l : 0)];
                }
                stack_[0][count] = batch::load_aligned(tail);
            }
        }
        count_[0] = count;
        return flush(rest);
    }

private:
    // The select masks, built once per call: xsimd 8.1 turns a batch_bool_constant into
    // a register at run time (an out-of-line call on avx512f), too slow for the inner loop.
    template <std::size_t H>
    void init_masks()
    {
        if constexpr (butterfly<T, Arch, H>::uses_mask) {
            low_[std::countr_zero(H)] = xsimd::make_batch_bool_constant<batch, low_lane<H>>();
        }
        if constexpr (2 * H < width) {
            init_masks<2 * H>();
        }
    }

    /// One butterfly step at stride H (see the file comment).
    template <std::size_t H>
    batch step(const batch& a, const batch& b)
    {
        batch e;
        batch o;
        butterfly<T, Arch, H>::apply(a, b, low_[std::countr_zero(H)], e, o);
        return batch(op_(std::as_const(e), std::as_const(o)));
    }

    // The fold written as a recursion over halves (the same steps in the same order as
    // stride 1, 2, ...): values stay in registers, with no array for the compiler to spill.

    /// Elements under one lane of a stratum-S register (W^S).
    template <unsigned S>
    static constexpr std::uint64_t elements_of()
    {
        std::uint64_t n = 1;
        for (unsigned s = 0; s < S; ++s) {
            n *= width;
        }
        return n;
    }

    /// Strata folded per main-loop iteration: the fewest giving at least 16 loads.
    static constexpr unsigned main_strata = [] {
        unsigned s = 1;
        std::uint64_t loads = width;
        while (loads < 16) {
            loads *= width;
            ++s;
        }
        return s;
    }();

    /// The stratum-S register over the W^(S+1) elements at p: `Count` stratum-(S-1)
    /// registers (each over W^S elements) folded; stratum 0 is a plain load.
    template <unsigned S, std::size_t Count = width>
    batch fold_group(const T* p)
    {
        if constexpr (S == 0) {
            return stream_load<T, Arch>(p);
        } else if constexpr (Count == 1) {
            return fold_group<S - 1>(p);
        } else {
            const batch left = fold_group<S, Count / 2>(p);
            const batch right = fold_group<S, Count / 2>(p + (Count / 2) * elements_of<S>());
            return step<Count / 2>(left, right);
        }
    }

    /// W registers -> one register; lane j = the tree over r[j]'s lanes.
    template <std::size_t Count = width>
    batch fold(const batch* r)
    {
        if constexpr (Count == 1) {
            return r[0];
        } else {
            return step<Count / 2>(fold<Count / 2>(r), fold<Count / 2>(r + Count / 2));
        }
    }

    /// A register's values and the first index (within the fold) each lane covers.
    struct tracked {
        batch value;
        batch first;
    };

    /// fold() for a cover clipped at `limit` lanes: the butterfly runs on the first indices
    /// too, and a lane whose right child starts at or past the limit passes its left child
    /// through. Indices stay below W*W, exact in every element type.
    template <std::size_t Count = width>
    tracked fold_clipped(const tracked* r, const batch& limit)
    {
        if constexpr (Count == 1) {
            return r[0];
        } else {
            constexpr std::size_t h = Count / 2;
            const auto& low = low_[std::countr_zero(h)];
            const tracked a = fold_clipped<h>(r, limit);
            const tracked b = fold_clipped<h>(r + h, limit);
            batch e;
            batch o;
            batch e_first;
            batch o_first;
            butterfly<T, Arch, h>::apply(a.value, b.value, low, e, o);
            butterfly<T, Arch, h>::apply(a.first, b.first, low, e_first, o_first);
            const batch combined(op_(std::as_const(e), std::as_const(o)));
            return tracked{xsimd::select(o_first < limit, combined, e), e_first};
        }
    }

    /// Folds the first `count` registers of r whose first `lanes` lanes are valid (the
    /// rest of the cover lies past the clipped end).
    batch fold_partial(const batch* r, unsigned count, std::uint64_t lanes)
    {
        alignas(Arch::alignment()) T iota[width];
        for (std::size_t l = 0; l < width; ++l) {
            iota[l] = static_cast<T>(l);
        }
        const batch lane_index = batch::load_aligned(iota);
        tracked t[width];
        for (std::size_t j = 0; j < width; ++j) {
            // absent registers repeat register 0: ordinary values, never passed on
            t[j] = tracked{r[j < count ? j : 0], lane_index + batch(static_cast<T>(j * width))};
        }
        return fold_clipped(t, batch(static_cast<T>(lanes))).value;
    }

    /// Pushes a full register onto stratum k (k >= 1), folding full strata upwards.
    void push(unsigned k, const batch& v)
    {
        stack_[k][count_[k]++] = v;
        while (count_[k] == width) {
            const batch up = fold(stack_[k]);
            count_[k] = 0;
            ++k;
            stack_[k][count_[k]++] = up;
        }
        top_ = k > top_ ? k : top_;
    }

    /// Folds what is left on every stratum, lowest first (it covers the highest indices),
    /// carrying one partial register upwards until a single lane remains.
    T flush(std::uint64_t lanes0)
    {
        batch carry{};
        std::uint64_t carry_lanes = 0;
        for (unsigned k = 0;; ++k) {
            std::uint64_t lanes = k == 0 ? lanes0 : std::uint64_t{count_[k]} * width;
            if (carry_lanes > 0) {
                stack_[k][count_[k]++] = carry;
                lanes += carry_lanes;
            }
            if (k >= top_ && lanes == 1) {
                alignas(Arch::alignment()) T out[width];
                stack_[k][0].store_aligned(out);
                return out[0];
            }
            if (lanes == 0) {
                continue;
            }
            carry = fold_partial(stack_[k], count_[k], lanes);
            carry_lanes = (lanes + width - 1) / width;
            count_[k] = 0;
        }
    }

    static constexpr unsigned strata = 64 / width_log2 + 2;
    Op& op_;
    xsimd::batch_bool<T, Arch> low_[width_log2];
    batch stack_[strata][width];
    unsigned count_[strata] = {};
    unsigned top_ = 0;
};

} // namespace simd_detail

// Even a node shorter than one register goes through a padded register: this keeps the
// per-architecture translation units free of scalar code shared with other TUs (an inline
// function compiled with -mavx512f there could be the copy the linker keeps for everyone).
template <class Arch>
template <class T, class Op>
T simd<Arch>::reduce_node(const T* first, std::uint64_t len, Op& op)
{
    simd_detail::folder<T, Arch, Op> f(op);
    return f.run(first, len);
}

} // namespace treefold::kernel
