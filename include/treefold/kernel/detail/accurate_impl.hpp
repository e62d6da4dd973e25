#pragma once
/// The register part of kernel::accurate_simd<Arch>: include it only in translation units
/// compiled with the architecture's flags (src/kernel/accurate_ARCH.cpp). Everything here
/// is templated on Arch, so nothing compiled with those flags is shared with other objects.
///
/// A block of W^(S+1) values (W lanes per register; S = 1 .. strata) folds exactly as kernel::simd's
/// fold_group<S> does (simd_impl.hpp): the same butterfly steps, applied to the high and the
/// low parts of a double-double register pair, and add_dd in place of the operator; the first
/// step, on the loaded values themselves, is add_lifted (the same bits, fewer operations).
///
/// Each block is folded first with the unchecked additions (add_dd_unchecked,
/// add_lifted_unchecked: no guards for non-finite sums and -0), and again with the guarded
/// ones only where a lane node comes out non-finite or zero: elsewhere both give the same
/// bits (doc/design.md, "The unchecked fast path").

#include "treefold/config.hpp"
#include "treefold/kernel/accurate.hpp"
#include "treefold/kernel/detail/simd_impl.hpp"

#include <xsimd/xsimd.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>


namespace treefold::kernel::detail {

template <class Arch>
class accurate_folder {
public:
    using batch = xsimd::batch<double, Arch>;
    static constexpr std::size_t width = batch::size;
    static_assert(std::has_single_bit(width) && width >= 2);

    /// The largest stratum folded in one call: the fewest giving at least 2048 values (each
    /// block's lanes are then joined by scalar code once per 2048 or more values; 256 was
    /// 10 % slower at N = 10^5, 16384 2 % faster).
    static constexpr unsigned strata = [] {
        unsigned s = 1;
        std::uint64_t n = std::uint64_t{width} * width;
        while (n < 2048) {
            n *= width;
            ++s;
        }
        return s;
    }();

    accurate_folder()
    {
        init_masks(std::make_index_sequence<width_log2>{});
        // 1.0 through a volatile, so the compiler cannot fold a * 1 + b back into an addition
        volatile double one = 1.0;
        one_ = batch(one);
    }

    /// The width lane nodes of the stratum-S block (W^(S+1) values) at p; Chains: the
    /// independent subtrees the unchecked fold runs in lockstep (see multi): 2 for data in
    /// cache, 1 with kernel::simd's streaming loads for data streamed from memory.
    template <unsigned S, std::size_t Chains>
    void fold(const double* p, double* hi, double* lo)
    {
        const auto m = fold_many<S, width, 1, Chains>(std::array<const double*, 1>{p});
        pair r{m.hi.v[0], m.lo.v[0]};
        // A finite non-zero high part in every lane proves the unchecked fold exact; a NaN,
        // infinity or zero (rare: infinities, overflow, -0 leaves, exact cancellation) sends
        // the block through the guarded fold.
        if (!xsimd::all(((r.hi - r.hi) == batch(0.0)) & (r.hi != batch(0.0)))) {
            r = fold_group<S>(p);
        }
        r.hi.store_unaligned(hi);
        r.lo.store_unaligned(lo);
    }

private:
    struct pair {
        batch hi;
        batch lo;
    };

    static constexpr unsigned width_log2 = static_cast<unsigned>(std::countr_zero(width));

    /// Whether the architecture's TU has fused multiply-add instructions (avx512f does; the
    /// avx2 TU is built without -mfma, and xsimd would emulate them there).
    static constexpr bool fused = std::is_same_v<Arch, xsimd::avx512f>;

    /// x * y + z (Negate: -(x * y) + z) in one instruction: the intrinsic, as xsimd 8.1's
    /// avx512f fma multiplies and adds separately unless the TU is built with -mfma.
    template <bool Negate>
    static batch fused_op(const batch& x, const batch& y, const batch& z)
    {
#if XSIMD_WITH_AVX512F
        if constexpr (fused) {
            const auto r = Negate ? _mm512_fnmadd_pd(x.data, y.data, z.data) : _mm512_fmadd_pd(x.data, y.data, z.data);
            return batch(r);
        }
#endif
        return Negate ? z - x * y : x * y + z; // not reached: `fused` is avx512f only
    }

    /// K registers side by side: the unchecked fold runs K independent subtrees in
    /// lockstep, operation by operation, so the long dependency chains of TwoSum (each
    /// step waits for the previous one) overlap instead of stalling the adders. (At
    /// N = 10^5 two chains are 10 % faster than one; streaming from memory they were 1.5x
    /// slower, and lockstep inside the lowest stratum only gained nothing: doc/performance.md.)
    template <std::size_t K>
    struct multi {
        batch v[K];
        multi() = default;
        explicit multi(double x)
        {
            for (auto& r : v) {
                r = batch(x);
            }
        }
        friend multi operator+(const multi& a, const multi& b)
        {
            multi r;
            for (std::size_t k = 0; k < K; ++k) {
                r.v[k] = a.v[k] + b.v[k];
            }
            return r;
        }
        friend multi operator-(const multi& a, const multi& b)
        {
            multi r;
            for (std::size_t k = 0; k < K; ++k) {
                r.v[k] = a.v[k] - b.v[k];
            }
            return r;
        }
    };

    /// a + b as a * 1 + b (Negate: a - b as -(b * 1) + a), rounded once: the bits of the
    /// addition, signed zeros included, on the multiply-add units (Zen 4 runs additions on
    /// two pipes and fma on two others; the unchecked fold is bound by its additions, so half
    /// of them go there). Plain + and - where the architecture has no fma.
    template <bool Negate>
    struct fused_add_sub {
        const batch& one;
        template <std::size_t K>
        multi<K> operator()(const multi<K>& a, const multi<K>& b) const
        {
            multi<K> r;
            for (std::size_t k = 0; k < K; ++k) {
                r.v[k] = (*this)(a.v[k], b.v[k]);
            }
            return r;
        }
        batch operator()(const batch& a, const batch& b) const
        {
            if constexpr (fused) {
                return Negate ? fused_op<true>(b, one, a) : fused_op<false>(a, one, b);
            } else {
                return Negate ? a - b : a + b;
            }
        }
    };
    using fused_add = fused_add_sub<false>;
    using fused_sub = fused_add_sub<true>;

    /// The select masks of the strides whose butterfly uses one (built once per call, as in
    /// kernel::simd).
    template <std::size_t... Level>
    void init_masks(std::index_sequence<Level...>)
    {
        (
            [&] { // a default capture: clang flags an explicit `this` that if constexpr leaves unused
                constexpr std::size_t h = std::size_t{1} << Level;
                if constexpr (butterfly<double, Arch, h>::uses_mask) {
                    low_[Level] = xsimd::make_batch_bool_constant<batch, low_lane<h>>();
                }
            }(),
            ...);
    }

    /// Values under one lane of a stratum-S register: W^S.
    template <unsigned S>
    static constexpr std::uint64_t elements_of = std::uint64_t{1} << (S * width_log2);

    /// One butterfly step at stride H on double-double registers.
    template <std::size_t H>
    pair step(const pair& a, const pair& b)
    {
        batch eh;
        batch oh;
        batch el;
        batch ol;
        butterfly<double, Arch, H>::apply(a.hi, b.hi, low_[std::countr_zero(H)], eh, oh);
        butterfly<double, Arch, H>::apply(a.lo, b.lo, low_[std::countr_zero(H)], el, ol);
        pair out;
        add_dd(eh, el, oh, ol, out.hi, out.lo);
        return out;
    }

    /// fold_group of kernel::simd for double-doubles (S >= 1): the stratum-S register over
    /// the W^(S+1) values at p, with the guarded additions.
    template <unsigned S, std::size_t Count = width>
    pair fold_group(const double* p)
    {
        if constexpr (S == 1 && Count == 2) {
            // the first step: two loaded registers of leaves
            batch e;
            batch o;
            butterfly<double, Arch, 1>::apply(batch::load_unaligned(p), batch::load_unaligned(p + width), low_[0], e, o);
            pair out;
            add_lifted(e, o, out.hi, out.lo);
            return out;
        } else if constexpr (Count == 1) {
            return fold_group<S - 1>(p);
        } else {
            const pair left = fold_group<S, Count / 2>(p);
            const pair right = fold_group<S, Count / 2>(p + (Count / 2) * elements_of<S>);
            return step<Count / 2>(left, right);
        }
    }

    template <std::size_t K>
    struct pairs {
        multi<K> hi;
        multi<K> lo;
    };

    /// One unchecked butterfly step at stride H on K register pairs at once.
    template <std::size_t H, std::size_t K>
    pairs<K> step_many(const pairs<K>& a, const pairs<K>& b)
    {
        multi<K> eh;
        multi<K> oh;
        multi<K> el;
        multi<K> ol;
        for (std::size_t k = 0; k < K; ++k) {
            butterfly<double, Arch, H>::apply(a.hi.v[k], b.hi.v[k], low_[std::countr_zero(H)], eh.v[k], oh.v[k]);
            butterfly<double, Arch, H>::apply(a.lo.v[k], b.lo.v[k], low_[std::countr_zero(H)], el.v[k], ol.v[k]);
        }
        pairs<K> out;
        add_dd_unchecked(eh, el, oh, ol, out.hi, out.lo, fused_add{one_}, fused_sub{one_});
        return out;
    }

    /// The unchecked fold_group<S, Count> at each of the K pointers, in lockstep; the halves
    /// of each group join the lockstep until it is Chains wide.
    template <unsigned S, std::size_t Count, std::size_t K, std::size_t Chains>
    pairs<K> fold_many(const std::array<const double*, K>& ps)
    {
        if constexpr (S == 1 && Count == 2) {
            multi<K> e;
            multi<K> o;
            for (std::size_t k = 0; k < K; ++k) {
                if constexpr (Chains == 1) {
                    // kernel::simd's streaming load (two 256-bit halves on avx512f: no
                    // cache-line split per load; the same lanes as load_unaligned)
                    butterfly<double, Arch, 1>::apply(stream_load<double, Arch>(ps[k]), stream_load<double, Arch>(ps[k] + width),
                                                      low_[0], e.v[k], o.v[k]);
                } else {
                    butterfly<double, Arch, 1>::apply(batch::load_unaligned(ps[k]), batch::load_unaligned(ps[k] + width), low_[0],
                                                      e.v[k], o.v[k]);
                }
            }
            pairs<K> out;
            add_lifted_unchecked(e, o, out.hi, out.lo, fused_add{one_}, fused_sub{one_});
            return out;
        } else if constexpr (Count == 1) {
            return fold_many<S - 1, width, K, Chains>(ps);
        } else {
            constexpr std::uint64_t half = (Count / 2) * elements_of<S>;
            pairs<K> left;
            pairs<K> right;
            if constexpr (K < Chains) {
                std::array<const double*, 2 * K> both;
                for (std::size_t k = 0; k < K; ++k) {
                    both[2 * k] = ps[k];
                    both[2 * k + 1] = ps[k] + half;
                }
                const pairs<2 * K> r = fold_many<S, Count / 2, 2 * K, Chains>(both);
                for (std::size_t k = 0; k < K; ++k) {
                    left.hi.v[k] = r.hi.v[2 * k];
                    left.lo.v[k] = r.lo.v[2 * k];
                    right.hi.v[k] = r.hi.v[2 * k + 1];
                    right.lo.v[k] = r.lo.v[2 * k + 1];
                }
            } else {
                std::array<const double*, K> next;
                for (std::size_t k = 0; k < K; ++k) {
                    next[k] = ps[k] + half;
                }
                left = fold_many<S, Count / 2, K, Chains>(ps);
                right = fold_many<S, Count / 2, K, Chains>(next);
            }
            return step_many<Count / 2>(left, right);
        }
    }

    xsimd::batch_bool<double, Arch> low_[width_log2];
    batch one_;
};

/// accurate_block_kernel::fold[S - 1] (Chains = 1) and fold_in_cache[S - 1] (Chains = 2)
/// for Arch.
template <class Arch, unsigned S, std::size_t Chains>
void accurate_fold_block(const double* p, double* hi, double* lo)
{
    accurate_folder<Arch> f;
    f.template fold<S, Chains>(p, hi, lo);
}

template <class Arch, unsigned... Level>
accurate_block_kernel accurate_blocks_of(std::integer_sequence<unsigned, Level...>)
{
    using folder = accurate_folder<Arch>;
    static_assert(folder::strata <= accurate_block_kernel::max_levels);
    accurate_block_kernel k{};
    ((k.fold[Level] = &accurate_fold_block<Arch, Level + 1, 1>), ...);
    ((k.fold_in_cache[Level] = &accurate_fold_block<Arch, Level + 1, 2>), ...);
    ((k.block[Level] = std::uint64_t{1} << ((Level + 2) * std::countr_zero(folder::width))), ...);
    k.levels = static_cast<int>(folder::strata);
    k.width = folder::width;
    return k;
}

template <class Arch>
accurate_block_kernel accurate_blocks() noexcept
{
    return accurate_blocks_of<Arch>(std::make_integer_sequence<unsigned, accurate_folder<Arch>::strata>{});
}

} // namespace treefold::kernel::detail
