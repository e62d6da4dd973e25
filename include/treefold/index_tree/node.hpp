#pragma once
/// Index math of the reduction tree fixed by the global index (no MPI, constexpr).
///
/// Node (x, y) has x a multiple of 2^y and covers [x, min(x + 2^y, N)). Its value is
/// x_x at level 0, a copy of (x, y-1) when the right child (x + 2^(y-1), y-1) starts at or
/// past N (pass-through), and op((x, y-1), (x + 2^(y-1), y-1)) otherwise. The root is
/// (0, root_level(N)). Indices are 64-bit; N may be as large as 2^63.

#include "treefold/config.hpp"

#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace treefold::index_tree {

/// Global element index.
using index_t = std::uint64_t;

/// Largest number of elements the tree supports (so that x + 2^y never overflows).
inline constexpr index_t max_size = index_t{1} << 63;

/// A tree node: first index `x` and level `level`; covers 2^level indices before clipping.
struct node {
    index_t x = 0;      ///< the first index covered (a multiple of 2^level)
    unsigned level = 0; ///< the height above the leaves (0: a single index)
    /// Equal x and level.
    friend constexpr bool operator==(const node&, const node&) = default;
    /// Ordered by x, then by level.
    friend constexpr auto operator<=>(const node&, const node&) = default;
};

/// 2^level as an index (level <= 63).
constexpr index_t span(unsigned level) { return index_t{1} << level; }

/// Level of the root for N elements: ceil(log2 N), and 0 for N <= 1.
constexpr unsigned root_level(index_t n)
{
    return n <= 1 ? 0u : static_cast<unsigned>(64 - std::countl_zero(n - 1));
}

/// One past the last index node `v` covers in a tree of `n` elements.
constexpr index_t cover_end(node v, index_t n)
{
    const index_t end = v.x + span(v.level);
    return end < n ? end : n;
}

/// Number of indices node `v` covers in a tree of `n` elements.
constexpr index_t cover_size(node v, index_t n) { return cover_end(v, n) - v.x; }

/// True when `v` is a valid node: x aligned to 2^level and inside a tree of `n` elements.
constexpr bool is_node(node v, index_t n)
{
    return v.level <= root_level(n) && v.x < n && (v.x & (span(v.level) - 1)) == 0;
}

/// True when `v` is the left child of its parent (the parent starts where `v` starts).
constexpr bool is_left_child(node v) { return (v.x & span(v.level)) == 0; }

/// The parent of `v` (one level up; x with bit `level` cleared).
constexpr node parent(node v) { return node{v.x & ~span(v.level), v.level + 1}; }

/// True when `v`'s parent copies `v` because the parent has no right child in [0, n).
constexpr bool parent_is_pass_through(node v, index_t n)
{
    return is_left_child(v) && v.x + span(v.level) >= n;
}

/// The highest level whose node starting at `v.x` still covers exactly what `v` covers
/// (climbs over pass-through parents). This is the canonical name of v's value.
constexpr node promote(node v, index_t n)
{
    const unsigned top = root_level(n);
    while (v.level < top && parent_is_pass_through(v, n)) {
        ++v.level;
    }
    return v;
}

/// The largest node starting at `x` whose cover lies inside [x, e) (x < e <= n).
constexpr node maximal_node_at(index_t x, index_t e, index_t n)
{
    const unsigned top = root_level(n);
    unsigned level = x == 0 ? top : static_cast<unsigned>(std::countr_zero(x));
    if (level > top) {
        level = top;
    }
    // cover_end grows with level; the first level that fits from above is the answer.
    while (level > 0 && cover_end(node{x, level}, n) > e) {
        --level;
    }
    return node{x, level};
}

} // namespace treefold::index_tree

// Decomposition of an index range into maximal tree nodes (its frontier's nodes).
namespace treefold::index_tree {

/// Upper bound on the number of nodes in the frontier of any range (ascending then
/// descending sizes, at most one node per level on each side).
inline constexpr std::size_t max_frontier_nodes = 2 * 64;

/// Calls `f(node)` for each maximal node of [s, e) in index order, in a tree of `n`
/// elements (s <= e <= n). No allocation; at most max_frontier_nodes calls.
template <class F>
constexpr void for_each_maximal_node(index_t s, index_t e, index_t n, F&& f)
{
    index_t x = s;
    while (x < e) {
        const node v = maximal_node_at(x, e, n);
        f(v);
        x = cover_end(v, n);
    }
}

/// The maximal nodes of [s, e) in index order.
inline std::vector<node> maximal_nodes(index_t s, index_t e, index_t n)
{
    std::vector<node> out;
    for_each_maximal_node(s, e, n, [&](node v) { out.push_back(v); });
    return out;
}

/// Number of maximal nodes of [s, e).
constexpr std::size_t maximal_node_count(index_t s, index_t e, index_t n)
{
    std::size_t count = 0;
    for_each_maximal_node(s, e, n, [&](node) { ++count; });
    return count;
}

} // namespace treefold::index_tree
