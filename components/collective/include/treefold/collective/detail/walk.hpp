#pragma once
/// The walk of one position of a rank-ordered reduction tree, generic over how pieces are
/// taken and combined: the collective component's trees (tree_reduce.hpp and the C entry
/// points) use it; the reducers' trees run schedules (plan/generators.hpp).
///
/// Failures: a rank that has failed, or learned of a failure, keeps receiving everything owed
/// to it and sends a failure wherever values were expected, so no peer waits and no message is
/// left behind. A rank keeps the first failure it knows of.

#include "treefold/config.hpp"
#include "treefold/error.hpp"
#include "treefold/topology/tree_shape.hpp"

#include <cstddef>
#include <optional>
#include <span>

namespace treefold::collective::detail {

/// One position's part of a rank-ordered tree reduction: its pieces (the children whose
/// subtrees precede it, itself, the children after it) in position order, or in reverse when
/// `from_right`. For child k, `take(k)` receives its message (always, even after a failure)
/// and returns the failure it carried, if any; while nothing has failed, `combine(piece,
/// failed)` folds piece k, or this position's own value for piece -1, into the accumulator
/// (setting `failed` if that throws). Sending the result to the parent is the caller's.
template <class Take, class Combine>
void walk_subtree(std::span<const topology::tree_child> children, int me, bool from_right,
                  maybe_failure& failed, Take&& take, Combine&& combine)
{
    std::size_t before = 0; // children whose subtrees precede this position
    while (before < children.size() && children[before].subtree_end <= me) {
        ++before;
    }
    const std::size_t pieces = children.size() + 1;
    for (std::size_t step = 0; step < pieces; ++step) {
        const std::size_t k = from_right ? pieces - 1 - step : step;
        const int piece = k < before ? static_cast<int>(k) : k == before ? -1 : static_cast<int>(k - 1);
        if (piece >= 0) {
            if (const maybe_failure remote = take(static_cast<std::size_t>(piece))) {
                failed = failed ? failed : remote;
                continue;
            }
        }
        if (!failed) {
            combine(piece, failed);
        }
    }
}

} // namespace treefold::collective::detail
