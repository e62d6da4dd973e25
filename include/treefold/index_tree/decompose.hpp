#pragma once
/// Decomposition of an index range into maximal tree nodes (its frontier's nodes).

#include "treefold/config.hpp"
#include "treefold/index_tree/node.hpp"

#include <cstddef>
#include <vector>

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
