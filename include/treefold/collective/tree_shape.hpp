#pragma once
/// Shapes of rank-ordered reduction trees over positions 0..p-1 (no MPI).
///
/// A shape gives every position its parent and its children such that each subtree covers
/// a contiguous range of positions and a position's own range comes first in its subtree
/// (children follow in increasing position order). Combining "own value, then each child's
/// subtree value in order" therefore combines positions left to right: non-commutative
/// operators get r_0 ∘ r_1 ∘ … ∘ r_{p-1}.

#include <algorithm>
#include <vector>

namespace treefold::collective {

/// A child of a position: its position and one past the last position of its subtree.
struct tree_child {
    int position;
    int subtree_end;
};

/// Binomial tree: the children of position i are i + 2^k for every 2^k below i's lowest set
/// bit (all k for i = 0); the parent of i > 0 is i with its lowest set bit cleared.
struct binomial {
    static constexpr const char* name = "binomial";

    static int parent(int position, int /*p*/)
    {
        return position == 0 ? -1 : position & (position - 1);
    }

    /// Children in increasing position order.
    static std::vector<tree_child> children(int position, int p)
    {
        std::vector<tree_child> out;
        const unsigned limit = position == 0 ? 0x40000000U : (static_cast<unsigned>(position) & (~static_cast<unsigned>(position) + 1U));
        for (unsigned step = 1; step < limit && position + static_cast<int>(step) < p; step <<= 1) {
            const int child = position + static_cast<int>(step);
            const int end = std::min(p, position + static_cast<int>(2 * step));
            out.push_back({child, end});
        }
        return out;
    }
};

} // namespace treefold::collective
