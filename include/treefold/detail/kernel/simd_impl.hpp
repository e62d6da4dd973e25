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

#include <array>
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

/// Even and odd lanes of the 2W values a, b: e = a_0 a_2 ... b_0 b_2 ..., o = a_1 a_3 ...
/// b_1 b_3 ..., so op(e, o) is the next tree level of the nodes in a, b. The generic version
/// is four swizzles and two selects; lanes_<arch>.hpp specialise it.
template <class T, class Arch>
struct deinterleave {
    using batch = xsimd::batch<T, Arch>;
    using index_batch = xsimd::batch<xsimd::as_unsigned_integer_t<T>, Arch>;
    /// Lane i reads lane (2i + Odd) mod W.
    template <unsigned Odd>
    struct spread {
        static constexpr unsigned get(unsigned i, unsigned n) { return (2 * i + Odd) % n; }
    };
    /// The lower half of the lanes.
    struct lower_half {
        static constexpr bool get(unsigned i, unsigned n) { return i < n / 2; }
    };
    static void apply(const batch& a, const batch& b, batch& e, batch& o)
    {
        constexpr auto even = xsimd::make_batch_constant<index_batch, spread<0>>();
        constexpr auto odd = xsimd::make_batch_constant<index_batch, spread<1>>();
        constexpr auto low = xsimd::make_batch_bool_constant<batch, lower_half>();
        e = xsimd::select(low, xsimd::swizzle(a, even), xsimd::swizzle(b, even));
        o = xsimd::select(low, xsimd::swizzle(a, odd), xsimd::swizzle(b, odd));
    }
};

/// The first `count` (< W) values at p in a register. The other lanes hold a copy of p[0]:
/// they are never combined into a result, but the operator still sees ordinary values
/// there (lanes_avx512f.hpp has a masked load, with zeros).
template <class T, class Arch>
xsimd::batch<T, Arch> partial_load(const T* p, unsigned count)
{
    alignas(Arch::alignment()) T tail[xsimd::batch<T, Arch>::size];
    for (std::size_t l = 0; l < xsimd::batch<T, Arch>::size; ++l) {
        tail[l] = p[l < count ? l : 0];
    }
    return xsimd::batch<T, Arch>::load_aligned(tail);
}

/// Where a folder's leaves come from: the values stored at `first`.
template <class T, class Arch>
struct stored_leaves {
    const T* first;
    /// The main loop's register of leaves [i, i + W).
    xsimd::batch<T, Arch> stream(std::uint64_t i) const { return stream_load<T, Arch>(first + i); }
    /// A register of leaves [i, i + W) outside the main loop.
    xsimd::batch<T, Arch> load(std::uint64_t i) const { return xsimd::batch<T, Arch>::load_unaligned(first + i); }
    /// The first `count` (< W) leaves from i in a register (partial_load's other lanes).
    xsimd::batch<T, Arch> partial(std::uint64_t i, unsigned count) const { return partial_load<T, Arch>(first + i, count); }
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
    xsimd::batch<T, Arch> partial(std::uint64_t i, unsigned count) const
    {
        return partial_load<T, Arch>(x + i, count) * partial_load<T, Arch>(y + i, count);
    }
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
                stack_[0][count] = leaves.partial(i + j, static_cast<unsigned>(rest - j));
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

    /// The lane numbers 0, 1, ..., W-1 as values of T (exact: W <= 64).
    static batch lane_index()
    {
        alignas(Arch::alignment()) static constexpr auto values = [] {
            std::array<T, width> v{};
            for (std::size_t l = 0; l < width; ++l) {
                v[l] = static_cast<T>(l);
            }
            return v;
        }();
        return batch::load_aligned(values.data());
    }

    /// Climbs the `n` nodes held in order in r[0, c) (full registers, the last one possibly
    /// partial) one tree level per round, for `levels` rounds or until one node is left, and
    /// returns how many are left (in order from lane 0 of r[0]). A round pairs adjacent nodes
    /// by splitting two registers into their even and odd lanes: node i of the new level is
    /// op(node 2i, node 2i+1), or node 2i itself where 2i + 1 is past the end (pass-through).
    std::uint64_t climb(batch* r, unsigned c, std::uint64_t n, unsigned levels)
    {
        for (; levels > 0 && n > 1 && c > 1; --levels) {
            const std::uint64_t pairs = n / 2; // new nodes with a right child
            const unsigned out = (c + 1) / 2;
            for (unsigned i = 0; i < out; ++i) {
                batch e;
                batch o;
                // A missing right register repeats the left one: ordinary values, never kept.
                deinterleave<T, Arch>::apply(r[2 * i], r[2 * i + 1 < c ? 2 * i + 1 : 2 * i], e, o);
                const batch combined(op_(std::as_const(e), std::as_const(o)));
                const std::uint64_t base = std::uint64_t{i} * width;
                r[i] = pairs >= base + width
                           ? combined
                           : xsimd::select(lane_index() < batch(static_cast<T>(pairs > base ? pairs - base : 0)),
                                           combined, e);
            }
            c = out;
            n = (n + 1) / 2;
        }
        // One register left (n <= W): the last levels in a register, not through the stack
        // (each round would wait for a store to forward).
        batch v = r[0];
        const batch lanes = lane_index();
        for (; levels > 0 && n > 1; --levels) {
            batch e;
            batch o;
            deinterleave<T, Arch>::apply(v, v, e, o);
            const batch combined(op_(std::as_const(e), std::as_const(o)));
            v = xsimd::select(lanes < batch(static_cast<T>(n / 2)), combined, e);
            n = (n + 1) / 2;
        }
        r[0] = v;
        return n;
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
    /// carrying one partial register upwards; from the top stratum on it climbs until a
    /// single node remains. Stratum 0 holds `lanes0` elements.
    T flush(std::uint64_t lanes0)
    {
        batch carry{};
        std::uint64_t carry_lanes = 0;
        for (unsigned k = 0;; ++k) {
            unsigned c = count_[k];
            std::uint64_t n = k == 0 ? lanes0 : std::uint64_t{c} * width;
            if (carry_lanes > 0) {
                stack_[k][c++] = carry;
                n += carry_lanes;
            }
            if (n == 0) {
                continue;
            }
            const bool last = k >= top_;
            carry_lanes = climb(stack_[k], c, n, last ? 64 : width_log2);
            if (last) {
                alignas(Arch::alignment()) T out[width];
                stack_[k][0].store_aligned(out);
                return out[0];
            }
            carry = stack_[k][0];
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
