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
#include "treefold/kernel/detail/lanes_avx2.hpp"
#include "treefold/kernel/detail/lanes_avx512f.hpp"
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

/// Lane l of the result is lane l ^ H of v. The generic version is xsimd::swizzle (a
/// permute with its index in memory on avx512f); lanes_<arch>.hpp specialise it to
/// immediate-operand shuffles.
template <class T, class Arch, std::size_t H>
struct lane_swap {
    using batch = xsimd::batch<T, Arch>;
    static batch apply(const batch& v)
    {
        using index_batch = xsimd::batch<xsimd::as_unsigned_integer_t<T>, Arch>;
        return xsimd::swizzle(v, xsimd::make_batch_constant<index_batch, xor_lane<H>>());
    }
};

/// The operands of one butterfly step at stride H: e = the left children, o = the right
/// children (see the file comment). The generic version is lane_swap plus select;
/// lanes_<arch>.hpp specialise it to do the same lane moves in one native instruction each
/// where xsimd 8.1 has no two-register permute (they never change a value, only move
/// lanes). sse2 has none: it takes the generic version.
template <class T, class Arch, std::size_t H>
struct butterfly {
    static constexpr bool uses_mask = true;
    using batch = xsimd::batch<T, Arch>;
    template <class Mask>
    static void apply(const batch& a, const batch& b, const Mask& low, batch& e, batch& o)
    {
        e = xsimd::select(low, a, lane_swap<T, Arch, H>::apply(b));
        o = xsimd::select(low, lane_swap<T, Arch, H>::apply(a), b);
    }
};

/// Operators whose operands may trade places without changing a result's bits: + and * on
/// arithmetic types (IEEE addition and multiplication are commutative, and so is wrapping
/// integer arithmetic). Only a NaN's sign and payload can change, which the kernels do not
/// promise and the reducers canonicalise (doc/design.md). min and max are not among them: of
/// two equal values (-0 and +0) they keep the left one.
template <class Op, class T>
inline constexpr bool operands_swap = std::is_arithmetic_v<T> && (ops::detail::is_sum<Op> || ops::detail::is_product<Op>);

/// butterfly for an operator whose operands may swap (operands_swap): the same nodes in the
/// same lanes, but where bit H of the lane is set the right child is the first operand. Then
/// e = select(low, a, b) moves no lane, and only o needs a lane move: one permute per step
/// instead of two. Generic: two selects and a lane_swap; lanes_<arch>.hpp specialise it.
template <class T, class Arch, std::size_t H>
struct swapped_butterfly {
    static constexpr bool uses_mask = true;
    using batch = xsimd::batch<T, Arch>;
    template <class Mask>
    static void apply(const batch& a, const batch& b, const Mask& low, batch& e, batch& o)
    {
        e = xsimd::select(low, a, b);
        o = lane_swap<T, Arch, H>::apply(xsimd::select(low, b, a));
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
    /// Leaf i alone.
    T value(std::uint64_t i) const { return first[i]; }
    /// The leaves from i on.
    stored_leaves shifted(std::uint64_t i) const { return {first + i}; }
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
    T value(std::uint64_t i) const { return x[i] * y[i]; }
    product_leaves shifted(std::uint64_t i) const { return {x + i, y + i}; }
};

/// The butterfly steps for one (T, Arch, Op) over the leaves of `Leaves` (stored values by
/// default): whole groups of registers folded at compile-time sizes, and the short nodes
/// (run_short) built from them. folder adds the stacks for nodes of any length.
template <class T, class Arch, class Op, class Leaves = stored_leaves<T, Arch>>
class steps {
public:
    using batch = xsimd::batch<T, Arch>;
    static constexpr std::size_t width = batch::size;
    static constexpr unsigned width_log2 = static_cast<unsigned>(std::countr_zero(width));
    static_assert(std::has_single_bit(width) && width >= 2 && width <= 64);

    explicit steps(Op& op) : op_(op) { init_masks<1>(); }

    /// Nodes shorter than short_below take run_short: operators whose operands swap, on
    /// registers of 256 bits or more (sse2 keeps the scalar tree: two doubles per register
    /// leave little to gain, and its generic selects were not measured here).
    static constexpr bool has_short = operands_swap<Op, T> && width * sizeof(T) >= 32;
    static constexpr std::uint64_t short_below = 1024;

    /// The node over leaves [0, len), 1 <= len < short_below, for an operator whose operands
    /// swap: the combination of its full power-of-two pieces (see pieces_node). A piece of W
    /// or more leaves is folded in registers by compile-time butterfly steps and finished by
    /// horizontal steps; shorter pieces are scalar.
    ///
    /// Flattened: the pieces' folds inlined whole are much faster here, whereas the folder's
    /// main loop streams faster with the compiler's own choice (doc/performance.md).
    [[gnu::flatten]] T run_short(const Leaves& leaves, std::uint64_t len)
        requires has_short
    {
        return short_pieces<0>(leaves, len);
    }

protected:
    // The select masks, built once per call: xsimd 8.1 turns a batch_bool_constant into
    // a register at run time (an out-of-line call on avx512f), too slow for the inner loop.
    template <std::size_t H>
    void init_masks()
    {
        if constexpr (step_lanes<H>::uses_mask) {
            low_[std::countr_zero(H)] = xsimd::make_batch_bool_constant<batch, low_lane<H>>();
        }
        if constexpr (2 * H < width) {
            init_masks<2 * H>();
        }
    }

    /// The lane moves of a step at stride H: one permute when the operands may swap.
    template <std::size_t H>
    using step_lanes = std::conditional_t<operands_swap<Op, T>, swapped_butterfly<T, Arch, H>, butterfly<T, Arch, H>>;

    /// One butterfly step at stride H (see the file comment).
    template <std::size_t H>
    batch step(const batch& a, const batch& b)
    {
        batch e;
        batch o;
        step_lanes<H>::apply(a, b, low_[std::countr_zero(H)], e, o);
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

    /// The stratum-S register over the Count * W^S leaves from `at` (W^(S+1) by default):
    /// `Count` stratum-(S-1) registers (each over W^S leaves) folded; stratum 0 is a plain
    /// load. Where Count < W, lane g * Count + r holds node g of register r.
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

    /// The tree over the W nodes of a fold_group<S, C> register: sibling lanes differ in bit
    /// log2(C), then the higher bits, then bits 0 .. log2(C) - 1. Each step gives every lane
    /// its sibling pair's node (operands swapped where the lane is the right sibling).
    template <std::size_t C>
    T horizontal(batch v)
    {
        v = climb_lanes<C, width>(v);
        v = climb_lanes<1, C>(v);
        alignas(Arch::alignment()) T out[width];
        v.store_aligned(out);
        return out[0];
    }

    /// Horizontal steps at lane strides H, 2H, ... below End.
    template <std::size_t H, std::size_t End>
    [[gnu::always_inline]] batch climb_lanes(const batch& v)
    {
        if constexpr (H >= End) {
            return v;
        } else {
            return climb_lanes<2 * H, End>(batch(op_(v, lane_swap<T, Arch, H>::apply(v))));
        }
    }

    Op& op_;
    xsimd::batch_bool<T, Arch> low_[width_log2];

private:
    static constexpr unsigned short_levels = std::bit_width(short_below - 1);

    /// The pieces at levels >= A (len's set bits), smallest first: `acc` is the node of
    /// everything right of level A's piece (`have`: there is something right of it).
    template <unsigned A>
    [[gnu::always_inline]] T short_pieces(const Leaves& leaves, std::uint64_t len, T acc = T{}, bool have = false)
    {
        if (((len >> A) & 1) != 0) {
            const std::uint64_t at = len & ~((std::uint64_t{2} << A) - 1); // the bits above A
            const T piece = full_piece<A>(leaves, at);
            acc = have ? T(op_(piece, std::as_const(acc))) : piece;
            have = true;
        }
        if constexpr (A + 1 < short_levels) {
            if ((len >> (A + 1)) != 0) {
                return short_pieces<A + 1>(leaves, len, acc, have);
            }
        }
        return acc;
    }

    /// The full tree over the 2^A leaves from `at`.
    template <unsigned A>
    [[gnu::always_inline]] T full_piece(const Leaves& leaves, std::uint64_t at)
    {
        constexpr std::uint64_t n = std::uint64_t{1} << A;
        if constexpr (A == 0) {
            return leaves.value(at);
        } else if constexpr (n < width) {
            const T left = full_piece<A - 1>(leaves, at);
            const T right = full_piece<A - 1>(leaves, at + n / 2);
            return op_(left, right);
        } else {
            // 2^k registers = C * W^q: fold_group<q + 1, C> folds them into one register whose
            // lane g * C + r holds node r * (W / C) + g of the piece's W nodes.
            constexpr unsigned k = A - width_log2;
            constexpr std::size_t c = std::size_t{1} << (k % width_log2);
            return horizontal<c>(fold_group<k / width_log2 + 1, c>(leaves, at));
        }
    }

};

/// The tree folder for one (T, Arch, Op) over the leaves of `Leaves`: register stacks per
/// stratum for a node of any length.
template <class T, class Arch, class Op, class Leaves = stored_leaves<T, Arch>>
class folder : public steps<T, Arch, Op, Leaves> {
    using base = steps<T, Arch, Op, Leaves>;
    using base::fold;
    using base::main_strata;
    using base::op_;

public:
    using typename base::batch;
    using base::width;
    using base::width_log2;

    explicit folder(Op& op) : base(op) {}

    T run(const Leaves& leaves, std::uint64_t len)
    {
        constexpr std::uint64_t group = std::uint64_t{width} * width;
        std::uint64_t i = 0;
        // The main loop folds `main_strata` strata per iteration (at least 16 registers),
        // so narrow registers do not spend their time on the stratum stacks; then whole
        // groups of W registers (W*W elements) fold into one stratum-1 register each.
        constexpr std::uint64_t big = base::template elements_of<main_strata + 1>();
        for (; len - i >= big; i += big) {
            push(main_strata, this->template fold_group<main_strata>(leaves, i));
        }
        for (; len - i >= group; i += group) {
            push(1, this->template fold_group<1>(leaves, i));
        }
        // The rest (< W*W elements) is stratum 0: full registers, then at most one partial.
        const std::uint64_t rest = len - i;
        if constexpr (base::has_short) {
            if (rest == 0 && std::has_single_bit(len)) {
                // A full node ends on whole strata: only the top one holds registers.
                return top_node<1>(stack_[top_], count_[top_]);
            }
        }
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
    /// The node over the `c` registers r[0, c) (c a power of two below W, at least C), which
    /// hold its W * c subtrees in order: folded like fold_group<S, c>, then horizontal.
    template <std::size_t C>
    T top_node(const batch* r, unsigned c)
    {
        if constexpr (2 * C < width) {
            if (c != C) {
                return top_node<2 * C>(r, c);
            }
        }
        return this->template horizontal<C>(this->template fold<C>(r));
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
    batch stack_[strata][width];
    unsigned count_[strata] = {};
    unsigned top_ = 0;
};

/// folder::run out of line: its stacks (kilobytes of registers) would otherwise enlarge, and
/// probe, the stack frame of every short node.
template <class T, class Arch, class Op, class Leaves>
[[gnu::noinline]] T folder_node(const Leaves& leaves, std::uint64_t len, Op& op)
{
    return folder<T, Arch, Op, Leaves>(op).run(leaves, len);
}

/// pieces_node for len >= short_below (out of line, so the short path stays a leaf).
template <class T, class Arch, class Op, class Leaves>
[[gnu::noinline]] T long_pieces_node(const Leaves& leaves, std::uint64_t len, Op& op)
{
    using short_steps = steps<T, Arch, Op, Leaves>;
    constexpr std::uint64_t cut = short_steps::short_below;
    const std::uint64_t rest = len % cut;
    T acc{};
    bool have = false;
    if (rest != 0) {
        acc = short_steps(op).run_short(leaves.shifted(len - rest), rest);
        have = true;
    }
    for (unsigned a = std::countr_zero(cut); (len >> a) != 0; ++a) {
        if (((len >> a) & 1) != 0) {
            const std::uint64_t at = len & ~((std::uint64_t{2} << a) - 1); // the bits above a
            const T piece = folder_node<T, Arch>(leaves.shifted(at), std::uint64_t{1} << a, op);
            acc = have ? T(op(piece, std::as_const(acc))) : piece;
            have = true;
        }
    }
    return acc;
}

/// The node over leaves [0, len) (len > 0) for an operator whose operands swap
/// (steps::has_short). A node's tree is that of its full power-of-two pieces, largest first,
/// each combined with the node of everything right of it: op(piece 1, op(piece 2, ...)), the
/// clipped edge's pass-through (see kernel::small_node). The pieces below short_below are
/// one short node (steps::run_short); each larger piece is a full node for the folder, whose
/// stacks then end on whole strata.
template <class T, class Arch, class Op, class Leaves>
[[gnu::always_inline]] inline T pieces_node(const Leaves& leaves, std::uint64_t len, Op& op)
{
    using short_steps = steps<T, Arch, Op, Leaves>;
    if (len < short_steps::short_below) {
        return short_steps(op).run_short(leaves, len);
    }
    return long_pieces_node<T, Arch>(leaves, len, op);
}

} // namespace detail

// Even a node shorter than one register goes through a padded register (or, on the short
// path, scalar steps instantiated for this architecture): this keeps the per-architecture
// translation units free of scalar code shared with other TUs (an inline function compiled
// with -mavx512f there could be the copy the linker keeps for everyone).
template <class Arch>
template <class T, class Op>
T simd<Arch>::reduce_node(const T* first, std::uint64_t len, Op& op)
{
    using leaves = detail::stored_leaves<T, Arch>;
    if constexpr (detail::steps<T, Arch, Op, leaves>::has_short) {
        return detail::pieces_node<T, Arch>(leaves{first}, len, op);
    } else {
        return detail::folder<T, Arch, Op, leaves>(op).run(leaves{first}, len);
    }
}

template <class Arch>
template <class T, class Op>
T simd<Arch>::reduce_products(const T* x, const T* y, std::uint64_t len, Op& op)
{
    using leaves = detail::product_leaves<T, Arch>;
    if constexpr (detail::steps<T, Arch, Op, leaves>::has_short) {
        return detail::pieces_node<T, Arch>(leaves{x, y}, len, op);
    } else {
        return detail::folder<T, Arch, Op, leaves>(op).run(leaves{x, y}, len);
    }
}

} // namespace treefold::kernel
