#pragma once
/// Definition of kernel::simd<Arch>::reduce_node. Include it only in translation units
/// compiled with the flags of every architecture they instantiate (libtreefold's
/// src/kernel/simd_\<arch\>.cpp, or a user's own TU for an operator of their own).
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

#include "treefold/config.hpp"
#include "treefold/detail/kernel/lanes_avx2.hpp"
#include "treefold/detail/kernel/lanes_avx512f.hpp"
#include "treefold/kernel/simd.hpp"

#include <xsimd/xsimd.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace treefold::kernel {

namespace detail {

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
/// lanes_<arch>.hpp specialise it to do the same lane moves in one native instruction each
/// where xsimd 8.1 has no two-register permute (they never change a value, only move
/// lanes). sse2 has none: it takes the generic version.
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

/// The main loop's register load (lanes_avx512f.hpp has avx512f's own).
template <class T, class Arch>
xsimd::batch<T, Arch> stream_load(const T* p)
{
    return xsimd::batch<T, Arch>::load_unaligned(p);
}

/// Where a folder's leaves come from: the values stored at `first`.
template <class T, class Arch>
struct stored_leaves {
    const T* first;
    /// The main loop's register of leaves [i, i + W).
    xsimd::batch<T, Arch> stream(std::uint64_t i) const { return stream_load<T, Arch>(first + i); }
    /// A register of leaves [i, i + W) outside the main loop.
    xsimd::batch<T, Arch> load(std::uint64_t i) const { return xsimd::batch<T, Arch>::load_unaligned(first + i); }
    /// Leaf i alone.
    T at(std::uint64_t i) const { return first[i]; }
};

/// Leaves that are products x[i] * y[i], computed in the registers the fold reads: each
/// product is one IEEE multiplication, lane by lane the bits of the scalar x[i] * y[i] (the
/// build's -ffp-contract=off keeps it from fusing with the fold's operator).
template <class T, class Arch>
struct product_leaves {
    const T* x;
    const T* y;
    xsimd::batch<T, Arch> stream(std::uint64_t i) const { return stream_load<T, Arch>(x + i) * stream_load<T, Arch>(y + i); }
    xsimd::batch<T, Arch> load(std::uint64_t i) const
    {
        return xsimd::batch<T, Arch>::load_unaligned(x + i) * xsimd::batch<T, Arch>::load_unaligned(y + i);
    }
    T at(std::uint64_t i) const { return x[i] * y[i]; }
};

/// The tree folder for one (T, Arch, Op) over the leaves of `Leaves` (stored values by
/// default): register stacks per stratum and the fold.
template <class T, class Arch, class Op, class Leaves = stored_leaves<T, Arch>>
class folder {
public:
    using batch = xsimd::batch<T, Arch>;
    static constexpr std::size_t width = batch::size;
    static constexpr unsigned width_log2 = static_cast<unsigned>(std::countr_zero(width));
    static_assert(std::has_single_bit(width) && width >= 2 && width <= 64);

    explicit folder(Op& op) : op_(op) { init_masks<1>(); }

    T run(const Leaves& leaves, std::uint64_t len)
    {
        constexpr std::uint64_t group = std::uint64_t{width} * width;
        std::uint64_t i = 0;
        // The main loop folds `main_strata` strata per iteration (at least 16 registers),
        // so narrow registers do not spend their time on the stratum stacks; then whole
        // groups of W registers (W*W elements) fold into one stratum-1 register each.
        constexpr std::uint64_t big = elements_of<main_strata + 1>();
        for (; len - i >= big; i += big) {
            push(main_strata, fold_group<main_strata>(leaves, i));
        }
        for (; len - i >= group; i += group) {
            push(1, fold_group<1>(leaves, i));
        }
        // The rest (< W*W elements) is stratum 0: full registers, then at most one partial.
        const std::uint64_t rest = len - i;
        unsigned count = 0;
        for (std::uint64_t j = 0; j < rest; j += width, ++count) {
            if (rest - j >= width) {
                stack_[0][count] = leaves.load(i + j);
            } else {
                // Pad with a copy of a real element: padded lanes are never combined into
                // a result, but the operator still sees ordinary values there.
                alignas(Arch::alignment()) T tail[width];
                for (std::size_t l = 0; l < width; ++l) {
                    tail[l] = leaves.at(i + j + (l < rest - j ? l : 0));
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

    /// The stratum-S register over the W^(S+1) leaves from `at`: `Count` stratum-(S-1)
    /// registers (each over W^S leaves) folded; stratum 0 is a plain load.
    template <unsigned S, std::size_t Count = width>
    batch fold_group(const Leaves& leaves, std::uint64_t at)
    {
        if constexpr (S == 0) {
            return leaves.stream(at);
        } else if constexpr (Count == 1) {
            return fold_group<S - 1>(leaves, at);
        } else {
            const batch left = fold_group<S, Count / 2>(leaves, at);
            const batch right = fold_group<S, Count / 2>(leaves, at + (Count / 2) * elements_of<S>());
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

} // namespace detail

// Even a node shorter than one register goes through a padded register: this keeps the
// per-architecture translation units free of scalar code shared with other TUs (an inline
// function compiled with -mavx512f there could be the copy the linker keeps for everyone).
template <class Arch>
template <class T, class Op>
T simd<Arch>::reduce_node(const T* first, std::uint64_t len, Op& op)
{
    detail::folder<T, Arch, Op> f(op);
    return f.run(detail::stored_leaves<T, Arch>{first}, len);
}

template <class Arch>
template <class T, class Op>
T simd<Arch>::reduce_products(const T* x, const T* y, std::uint64_t len, Op& op)
{
    detail::folder<T, Arch, Op, detail::product_leaves<T, Arch>> f(op);
    return f.run(detail::product_leaves<T, Arch>{x, y}, len);
}

} // namespace treefold::kernel
