#pragma once
/// Shapes of rank-ordered reduction trees over positions 0..p-1 (no MPI).
///
/// Every shape is a recursive split of a contiguous range of positions [b, e): one position
/// of the range is the root of its subtree, and the others form at most a few contiguous
/// child ranges, each a subtree of the same kind. Because every subtree covers a contiguous
/// range, combining a position's pieces (its own value and its children's subtree values)
/// in position order combines positions left to right: non-commutative operators get
/// r_0 ∘ r_1 ∘ … ∘ r_{p-1}. Where the own value sits among the children differs by shape:
/// first (binomial, fibonacci, binary, m_ary<M>, truncated_*: pre-order) or last (inorder:
/// post-order).
///
/// A shape S provides
///     static constexpr const char* name;
///     static constexpr bool fold_from_right;   // preferred accumulation direction
///     static int root(int p);
///     static int parent(int position, int p);  // -1 at the root
///     static std::vector<tree_child> children(int position, int p); // by position
///     static int height(int p);                // messages on the longest leaf-root chain
/// All of them work for every p >= 1, not only powers of two or Fibonacci numbers.
/// one_port_rounds<S>(p) gives the schedule length when a rank receives one message per
/// round.

#include "treefold/config.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace treefold::topology {

/// A child of a position: the child's position and the range [subtree_begin, subtree_end)
/// of positions its subtree covers.
struct tree_child {
    int position;      ///< the child's position
    int subtree_begin; ///< the first position of the child's subtree
    int subtree_end;   ///< one past the last position of the child's subtree
};

/// The most child ranges one split may have (the widest m_ary degree).
inline constexpr int max_split_children = 16;

/// How a range splits: its root and up to K child ranges in increasing order. Sized to the
/// shape (every query makes O(height) splits, so a wider record than needed costs time).
template <int K>
struct basic_range_split {
    int root = 0;        ///< the range's root position
    int child_count = 0; ///< how many of `child` are used
    std::array<std::array<int, 2>, K> child{}; ///< [begin, end) of each child range
};

/// The split of a binary shape (fibonacci, binary, inorder): up to two child ranges.
using range_split = basic_range_split<2>;

/// A shape from a recursive split, the base of fibonacci, binary, inorder and m_ary (derive
/// from it to define another): parent/children/height for `Split::split(b, e)`, a range_split
/// whose children are ranges inside [b, e) without the root. Queries descend from [0, p):
/// O(height) splits (each O(children)).
template <class Split>
struct split_shape {
    /// The root position of [0, p) (-1 for p <= 0).
    static int root(int p) { return p <= 0 ? -1 : Split::split(0, p).root; }

    /// The parent of `position` (-1 at the root or outside [0, p)).
    static int parent(int position, int p)
    {
        const auto at = locate(position, p);
        return at ? at->parent : -1;
    }

    /// The children of `position` with their subtree ranges, in increasing position order.
    static std::vector<tree_child> children(int position, int p)
    {
        std::vector<tree_child> out;
        if (const auto at = locate(position, p)) {
            for (int c = 0; c < at->split.child_count; ++c) {
                const auto& r = at->split.child[static_cast<std::size_t>(c)];
                out.push_back({Split::split(r[0], r[1]).root, r[0], r[1]});
            }
        }
        return out;
    }

    /// Messages on the longest leaf-root chain (0 for p <= 1).
    static int height(int p) { return p <= 0 ? 0 : range_height(0, p); }

private:
    /// The split of the range whose root is `position`, and that range's parent position.
    struct located {
        decltype(Split::split(0, 1)) split;
        int parent;
    };

    /// Descends from [0, p) to the range whose root is `position` (none outside [0, p)).
    static std::optional<located> locate(int position, int p)
    {
        int parent_position = -1;
        int b = 0;
        int e = p;
        while (e - b > 0) {
            const auto s = Split::split(b, e);
            if (s.root == position) {
                return located{s, parent_position};
            }
            const auto end = s.child.begin() + s.child_count;
            const auto r = std::find_if(s.child.begin(), end,
                                        [position](const auto& c) { return position >= c[0] && position < c[1]; });
            if (r == end) {
                break;
            }
            parent_position = s.root;
            b = (*r)[0];
            e = (*r)[1];
        }
        return std::nullopt;
    }

    static int range_height(int b, int e)
    {
        const auto s = Split::split(b, e);
        int h = 0;
        for (int c = 0; c < s.child_count; ++c) {
            const auto& r = s.child[static_cast<std::size_t>(c)];
            h = std::max(h, 1 + range_height(r[0], r[1]));
        }
        return h;
    }
};

namespace detail {

/// Sizes of complete Fibonacci trees: S_0 = 0, S_1 = 1, S_k = 1 + S_{k-1} + S_{k-2}.
inline int fibonacci_tree_order(int n)
{
    int k = 0;
    std::int64_t prev = 0; // S_{k-1}
    std::int64_t cur = 0;  // S_k
    while (cur < n) {
        const std::int64_t next = k == 0 ? 1 : 1 + cur + prev;
        prev = cur;
        cur = next;
        ++k;
    }
    return k;
}

inline int fibonacci_tree_size(int k)
{
    std::int64_t prev = 0;
    std::int64_t cur = 0;
    for (int i = 1; i <= k; ++i) {
        const std::int64_t next = i == 1 ? 1 : 1 + cur + prev;
        prev = cur;
        cur = next;
    }
    return static_cast<int>(cur);
}

} // namespace detail

/// Binomial tree rooted at position 0: the children of position i are i + 2^k for every
/// 2^k below i's lowest set bit (all k for i = 0); the parent of i > 0 is i with its lowest
/// set bit cleared. The own value comes first; children follow, nearest (smallest) first,
/// which is also the order in which their subtrees finish.
struct binomial {
    static constexpr const char* name = "binomial"; ///< the shape's name
    static constexpr bool fold_from_right = false;  ///< pre-order: accumulate from the left

    /// Position 0.
    static int root(int /*p*/) { return 0; }

    /// `position` with its lowest set bit cleared (-1 at position 0).
    static int parent(int position, int /*p*/)
    {
        return position == 0 ? -1 : position & (position - 1);
    }

    /// Children in increasing position order.
    static std::vector<tree_child> children(int position, int p)
    {
        std::vector<tree_child> out;
        const std::int64_t limit = position == 0 ? std::int64_t{1} << 31 : (position & -position);
        for (std::int64_t step = 1; step < limit && position + step < p; step <<= 1) {
            const int child = position + static_cast<int>(step);
            const int end = static_cast<int>(std::min<std::int64_t>(p, position + 2 * step));
            out.push_back({child, child, end});
        }
        return out;
    }

    /// The most set bits of any position below p: max(popcount(p-1), bit length(p-1) - 1).
    static int height(int p)
    {
        if (p <= 1) {
            return 0;
        }
        const auto m = static_cast<std::uint32_t>(p - 1);
        const int ones = std::popcount(m);
        const int below = std::bit_width(m) - 1;
        return std::max(ones, below);
    }
};

/// Fibonacci tree (degree at most 2) rooted at position 0, in pre-order: a range [b, e) has
/// its root at b; with S_{k-1} < e - b <= S_k (S_0 = 0, S_1 = 1, S_k = 1 + S_{k-1} + S_{k-2}),
/// the lower child range right after the root is a complete Fibonacci tree of size S_{k-2}
/// and the upper child range holds the rest (between S_{k-1} - S_{k-2} and S_{k-1}). The
/// smaller, lower subtree finishes first and is combined first.
struct fibonacci_split {
    /// The root b and the child ranges of [b, e).
    static range_split split(int b, int e)
    {
        range_split s;
        s.root = b;
        const int n = e - b;
        if (n <= 1) {
            return s;
        }
        const int k = detail::fibonacci_tree_order(n);
        const int lower = detail::fibonacci_tree_size(k - 2);
        if (lower > 0) {
            s.child[static_cast<std::size_t>(s.child_count++)] = {b + 1, b + 1 + lower};
        }
        s.child[static_cast<std::size_t>(s.child_count++)] = {b + 1 + lower, e};
        return s;
    }
};

/// Complete binary tree rooted at position 0, in pre-order: a range of n positions has the
/// shape of a heap of n nodes (all levels full but the last, filled from the left); its
/// root is the first position, the left (lower) subtree takes the next positions.
struct binary_split {
    /// The root b and the child ranges of [b, e).
    static range_split split(int b, int e)
    {
        range_split s;
        s.root = b;
        const int n = e - b;
        if (n <= 1) {
            return s;
        }
        int h = 0; // levels below the root
        while ((std::int64_t{1} << (h + 1)) <= n) {
            ++h;
        }
        const int last_level = n - ((1 << h) - 1);
        const int half = 1 << (h - 1);
        const int left = (half - 1) + std::min(last_level, half);
        const int right = n - 1 - left;
        s.child[static_cast<std::size_t>(s.child_count++)] = {b + 1, b + 1 + left};
        if (right > 0) {
            s.child[static_cast<std::size_t>(s.child_count++)] = {b + 1 + left, e};
        }
        return s;
    }
};

/// Binary tree rooted at position p - 1 whose subtrees hold rank-ordered ranges with the
/// subtree's root last (post-order): a range [b, e) has its root at e - 1, the lower half
/// [b, b + n/2) as one child and [b + n/2, e - 1) as the other. Folding from the right
/// lets MPI_Reduce_local accumulate into the root's own buffer without copies.
struct inorder_split {
    /// The root e - 1 and the child ranges of [b, e).
    static range_split split(int b, int e)
    {
        range_split s;
        s.root = e - 1;
        const int n = e - b;
        if (n <= 1) {
            return s;
        }
        const int lower = n / 2;
        s.child[static_cast<std::size_t>(s.child_count++)] = {b, b + lower};
        if (n - 1 - lower > 0) {
            s.child[static_cast<std::size_t>(s.child_count++)] = {b + lower, e - 1};
        }
        return s;
    }
};

/// M-ary tree rooted at position 0, in pre-order: a range [b, e) has its root at b, and the
/// other n - 1 = e - b - 1 positions form k = min(M, n - 1) contiguous child ranges whose
/// sizes differ by at most one, the smaller ones first (the first k - (n - 1) mod k ranges
/// hold floor((n - 1) / k) positions, the rest one more). Equal sizes give the least height
/// any tree of degree M can have: the smallest h with 1 + M + ... + M^h >= n, as for a
/// complete M-ary heap, whose subtrees are unequal instead (full ones first, then one
/// partial, then full ones one level lower). The exchange receives the children in
/// position order, so the larger, possibly deeper, subtrees go last, as in fibonacci: the
/// parent folds the ones that finish first while the last ones are still on their way.
template <int M>
struct m_ary_split {
    static_assert(M >= 2 && M <= max_split_children, "m_ary<M> needs 2 <= M <= max_split_children (16)");

    /// The root b and the (at most M) child ranges of [b, e).
    static basic_range_split<M> split(int b, int e)
    {
        basic_range_split<M> s;
        s.root = b;
        const int rest = e - b - 1;
        if (rest <= 0) {
            return s;
        }
        const int k = std::min(M, rest);
        const int small = rest / k;
        const int larger_from = k - rest % k; // ranges from here on hold small + 1
        int at = b + 1;
        for (int c = 0; c < k; ++c) {
            const int len = small + (c >= larger_from ? 1 : 0);
            s.child[static_cast<std::size_t>(s.child_count++)] = {at, at + len};
            at += len;
        }
        return s;
    }
};

namespace detail {

/// "M-ary" as a character array with static storage, for m_ary<M>::name.
template <int M>
inline constexpr std::array<char, 8> m_ary_name = [] {
    std::array<char, 8> out{};
    std::size_t at = 0;
    if (M >= 10) {
        out[at++] = static_cast<char>('0' + M / 10);
    }
    out[at++] = static_cast<char>('0' + M % 10);
    for (const char* c = "-ary"; *c != '\0'; ++c) {
        out[at++] = *c;
    }
    return out;
}();

} // namespace detail

/// Fibonacci tree shape (see fibonacci_split).
struct fibonacci : split_shape<fibonacci_split> {
    static constexpr const char* name = "fibonacci"; ///< the shape's name
    static constexpr bool fold_from_right = false;   ///< pre-order: accumulate from the left
};

/// Complete binary tree shape (see binary_split).
struct binary : split_shape<binary_split> {
    static constexpr const char* name = "binary";  ///< the shape's name
    static constexpr bool fold_from_right = false; ///< pre-order: accumulate from the left
};

/// Post-order binary tree rooted at p - 1 (see inorder_split).
struct inorder : split_shape<inorder_split> {
    static constexpr const char* name = "inorder"; ///< the shape's name
    static constexpr bool fold_from_right = true;  ///< post-order: accumulate from the right, into the root's value
};

/// M-ary tree shape of degree M, 2 <= M <= 16 (see m_ary_split); name "M-ary", e.g. "4-ary".
template <int M>
struct m_ary : split_shape<m_ary_split<M>> {
    static constexpr const char* name = detail::m_ary_name<M>.data(); ///< "M-ary", e.g. "4-ary"
    static constexpr bool fold_from_right = false; ///< pre-order: accumulate from the left
};

/// A shape cut from one complete tree: the reduction-trees document's construction. `Complete`
/// gives the size of the complete tree for p positions (`size_for(p) >= p`) and, for a complete
/// subtree of n positions, the nominal sizes {a, b} of its two child subtrees (n = 1 + a + b).
/// Positions are numbered in pre-order (own position, then the first child subtree, then the
/// second), and the positions from p on are left out. Unlike split_shape, a range keeps the
/// split of the complete tree it was cut from, so a short range may hang as a chain where
/// split_shape would re-balance it (fibonacci at p = 8: 5 <- {6, 7} there, 5 <- 6 <- 7 here).
/// Queries descend from the root: O(height).
template <class Complete>
struct truncated_shape {
    /// Position 0 (-1 for p <= 0).
    static int root(int p) { return p <= 0 ? -1 : 0; }

    /// The parent of `position` (-1 at the root or outside [0, p)).
    static int parent(int position, int p)
    {
        const walk w = descend(position, p);
        return w.at == position ? w.parent : -1;
    }

    /// The children of `position` below p with their subtree ranges, in position order.
    static std::vector<tree_child> children(int position, int p)
    {
        std::vector<tree_child> out;
        const walk w = descend(position, p);
        if (w.at == position && w.n > 1 && position < p) {
            const auto [a, b] = Complete::child_sizes(w.n);
            const std::array<std::int64_t, 2> begin{w.at + 1, w.at + 1 + a};
            const std::array<std::int64_t, 2> size{a, b};
            for (std::size_t c = 0; c < 2; ++c) {
                if (size[c] > 0 && begin[c] < p) {
                    const int b0 = static_cast<int>(begin[c]);
                    out.push_back({b0, b0, static_cast<int>(std::min<std::int64_t>(p, begin[c] + size[c]))});
                }
            }
        }
        return out;
    }

    /// Messages on the longest leaf-root chain (0 for p <= 1).
    static int height(int p) { return p <= 0 ? 0 : height_below(0, p); }

private:
    /// Where descend stopped: a position, the size of its complete subtree, and the position
    /// before it on the way (-1 at the root).
    struct walk {
        int at;
        std::int64_t n;
        int parent;
    };

    /// Descends from the root towards `position`; stops there, at a leaf, or at a position
    /// whose subtree cannot hold it.
    static walk descend(int position, int p)
    {
        walk w{0, p <= 0 ? 0 : Complete::size_for(p), -1};
        while (w.at != position && w.n > 1 && position > w.at && position < p) {
            const auto [a, b] = Complete::child_sizes(w.n);
            w.parent = w.at;
            if (position <= w.at + a) {
                w.at += 1;
                w.n = a;
            } else {
                w.at += 1 + static_cast<int>(a);
                w.n = b;
            }
        }
        return w;
    }

    static int height_below(int position, int p)
    {
        int h = 0;
        for (const auto& c : children(position, p)) {
            h = std::max(h, 1 + height_below(c.position, p));
        }
        return h;
    }
};

/// The document's Fibonacci tree: the complete Fibonacci tree of S_k positions (S_0 = 0,
/// S_1 = 1, S_k = 1 + S_{k-1} + S_{k-2}; S_k = fib(k + 2) - 1) with the smallest S_k >= p,
/// its smaller child subtree (S_{k-2}) first, cut at p.
struct truncated_fibonacci_complete {
    /// The smallest S_k >= p.
    static std::int64_t size_for(int p) { return detail::fibonacci_tree_size(detail::fibonacci_tree_order(p)); }
    /// {S_{k-2}, S_{k-1}} for a complete subtree of n = S_k positions.
    static std::array<std::int64_t, 2> child_sizes(std::int64_t n)
    {
        const int k = detail::fibonacci_tree_order(static_cast<int>(n));
        return {k >= 2 ? detail::fibonacci_tree_size(k - 2) : 0, detail::fibonacci_tree_size(k - 1)};
    }
};

/// The document's binary tree: the complete binary tree of 2^d - 1 positions with
/// d = floor(log2 p) + 1 levels (2^d - 1 >= p), cut at p; at p = 2^k only the root's first
/// child is left.
struct truncated_binary_complete {
    /// 2^d - 1 with d = floor(log2 p) + 1.
    static std::int64_t size_for(int p)
    {
        return (std::int64_t{1} << std::bit_width(static_cast<std::uint32_t>(p))) - 1;
    }
    /// Two halves of (n - 1) / 2 positions each.
    static std::array<std::int64_t, 2> child_sizes(std::int64_t n) { return {(n - 1) / 2, (n - 1) / 2}; }
};

/// The reduction-trees document's Fibonacci tree (see truncated_shape): 0 <- {1, 5},
/// 1 <- {2, 3}, 3 <- 4, 5 <- 6 <- 7 at p = 8. fib(k + 3) - 1 positions in k one-port rounds.
struct truncated_fibonacci : truncated_shape<truncated_fibonacci_complete> {
    static constexpr const char* name = "truncated_fibonacci"; ///< the shape's name
    static constexpr bool fold_from_right = false;             ///< pre-order: accumulate from the left
};

/// The reduction-trees document's binary tree (see truncated_shape): 0 <- 1, 1 <- {2, 5},
/// 2 <- {3, 4}, 5 <- {6, 7} at p = 8. 2^(k+1) - 1 positions in 2k one-port rounds.
struct truncated_binary : truncated_shape<truncated_binary_complete> {
    static constexpr const char* name = "truncated_binary"; ///< the shape's name
    static constexpr bool fold_from_right = false;          ///< pre-order: accumulate from the left
};

namespace detail {

/// Round in which position q holds its subtree's value when every position receives at most
/// one message per round, from whichever child is ready first.
template <class Shape>
int one_port_finish(int q, int p)
{
    std::vector<int> ready;
    for (const auto& c : Shape::children(q, p)) {
        ready.push_back(one_port_finish<Shape>(c.position, p));
    }
    std::sort(ready.begin(), ready.end());
    int t = 0;
    for (const int r : ready) {
        t = std::max(t, r) + 1;
    }
    return t;
}

} // namespace detail

/// Rounds of a reduction along `Shape` over p positions in the one-port model (a rank
/// receives at most one message per round and sends once it has all its children's
/// values): ceil(log2 p) for the binomial tree. O(p) time.
template <class Shape>
int one_port_rounds(int p)
{
    return p <= 0 ? 0 : detail::one_port_finish<Shape>(Shape::root(p), p);
}

} // namespace treefold::topology
