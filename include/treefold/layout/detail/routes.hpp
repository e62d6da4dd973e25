#pragma once
/// Where a rank's subtree roots go and where its missing pieces come from under the owner-
/// computes rule (a rank owns the nodes whose first index lies in its block). Shared by the
/// direct and the one-sided exchanges; derived from the layout alone, no communication.

#include "treefold/config.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/index_tree/node.hpp"

#include <cstddef>
#include <vector>

namespace treefold::layout {

/// Index start of every position (the ranks in index order, layout.index_order()), n for an
/// empty block, and n at the end: positions [lo, hi) cover indices [starts[lo], starts[hi]).
inline std::vector<index_t> position_starts(const block_layout& layout)
{
    const auto order = layout.index_order();
    std::vector<index_t> starts(order.size() + 1, layout.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        const block& b = layout.block_of(order[i]);
        if (b.count > 0) {
            starts[i] = b.start;
        }
    }
    return starts;
}

/// The maximal nodes of `rank`'s block (none for an empty block): what its local kernel computes.
inline std::vector<index_tree::node> block_nodes(const block_layout& layout, int rank)
{
    const block b = layout.block_of(rank);
    return index_tree::maximal_nodes(b.start, b.end(), layout.size());
}

/// A node and the rank it goes to (outbound) or comes from (incoming).
struct routed_node {
    index_tree::node v;
    int rank;
};

/// The routes of one rank.
struct direct_routes {
    int finisher = 0;     ///< owner of index 0 (ends with the root)
    /// Right children in the block [s, e) whose parent starts before it, in level order (each
    /// goes to the parent's owner). Per level y: the first multiple x of 2^y at or after s, if x
    /// is an odd multiple and lies in the block.
    std::vector<routed_node> outbound;
    /// Right children starting at or after e whose parent lies in the block, in index order
    /// (= level order); at most one per level.
    std::vector<routed_node> incoming;
    /// True for a rank with an empty block: it sends the finisher one report (an empty
    /// message, or its failure), so a wrong size there is never lost.
    bool reports = false;
    /// On the finisher: the ranks with empty blocks, whose reports it takes.
    std::vector<int> reporters;

    direct_routes(const block_layout& layout, int rank)
    {
        const index_tree::index_t n = layout.size();
        const block b = layout.block_of(rank);
        const index_tree::index_t s = b.start;
        const index_tree::index_t e = b.end();
        finisher = n > 0 ? layout.owner(0) : 0;
        if (n > 0 && rank == finisher) {
            for (int r = 0; r < layout.ranks(); ++r) {
                if (layout.block_of(r).count == 0) {
                    reporters.push_back(r);
                }
            }
        }
        if (b.count == 0) {
            reports = n > 0;
            return;
        }
        if (s > 0) {
            for (unsigned y = 0; y < 64; ++y) {
                const index_tree::index_t x = (((s - 1) >> y) + 1) << y;
                if (x >= e) {
                    break;
                }
                if (((x >> y) & 1U) != 0) {
                    outbound.push_back({index_tree::node{x, y}, layout.owner(x - index_tree::span(y))});
                }
            }
        }
        for (unsigned y = 0; y < 63 && index_tree::span(y) < n; ++y) {
            const index_tree::index_t parent_start = ((e - 1) >> (y + 1)) << (y + 1);
            const index_tree::index_t right = parent_start + index_tree::span(y);
            if (parent_start >= s && right >= e && right < n) {
                incoming.push_back({index_tree::node{right, y}, layout.owner(right)});
            }
        }
    }
};

} // namespace treefold::layout
