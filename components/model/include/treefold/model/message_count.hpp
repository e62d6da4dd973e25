#pragma once
/// Message counts and the cost score of a layout under the direct exchange.
///
/// In the direct exchange a rank owns every node whose first index lies in its block. A node
/// that is the right child of a parent owned by another rank is an outbound subtree root: one
/// message (before buffering) to the parent's owner.

#include "treefold/config.hpp"
#include "treefold/layout/block_layout.hpp"

#include <cstdint>

namespace treefold::model {

/// Outbound subtree roots of the block [s, e), in O(1): the right children (x, y) with
/// x in [s, e) and parent start x - 2^y < s. Level y has one iff ceil(s / 2^y) is odd and
/// its multiple of 2^y lies below e, i.e. bit y of s - 1 is zero for y up to the highest bit
/// where s - 1 and e - 1 differ.
std::uint64_t outbound_roots(index_tree::index_t s, index_tree::index_t e);

/// Messages of the direct exchange without buffering, summed over ranks: O(p).
std::uint64_t direct_messages(const layout::block_layout& layout);

/// The same count by brute force over every index (for tests): every index i >= 1 starts
/// exactly one right child, (i, ctz(i)), whose parent starts at i - lowbit(i); it is a
/// message iff the two indices have different owners. O(N log p).
std::uint64_t direct_messages_brute_force(const layout::block_layout& layout);

/// Cost-model constants of the layout score (nanoseconds).
struct score_params {
    double t_send = 281.0; ///< cost of one message
    double t_op = 4.15;    ///< cost of one operator call
};

/// The layout's score: t_send * direct_messages + t_op * max_count (ns).
double score(const layout::block_layout& layout, score_params params = {});

} // namespace treefold::model
