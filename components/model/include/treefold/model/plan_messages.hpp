#pragma once
/// Messages per reducer call, computed from the layout alone (no communicator, no ranks).
///
/// Every exchange decides what it sends from the layout before any value exists: its
/// schedule (plan/schedule.hpp) lists every message. So the counts of a call at any p can be
/// computed in one process, and the tests check them against what the reducer counts.

#include "treefold/config.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/plan/generators.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace treefold::model {

/// Messages rank `rank` sends in one call of the direct exchange: its schedule's
/// (plan::direct, the one the exchange runs). O(log N) per rank.
std::uint64_t direct_rank_messages(const layout::block_layout& layout, int rank, plan::direct_buffering rules = {});

/// Reports of empty blocks to the finisher under the direct and one-sided exchanges: one
/// per empty block (none when N = 0).
std::uint64_t empty_block_reports(const layout::block_layout& layout);

/// Messages of the direct exchange summed over all ranks (with buffering): O(p log N).
std::uint64_t direct_exchange_messages(const layout::block_layout& layout, plan::direct_buffering rules = {});

/// Messages of the tree exchange (any shape) summed over ranks: every position but the
/// shape's root sends its subtree's frontier once, empty ranks included (they send an empty
/// frontier, so the shape never changes with the layout): p - 1.
std::uint64_t tree_exchange_messages(const layout::block_layout& layout);

/// Messages of the reducer's binomial broadcast of the root after the exchange in
/// all_reduce: every rank but the finisher receives once, p - 1.
std::uint64_t broadcast_messages(int p);

/// Message counts of one exchange for one layout (totals over ranks, per call).
struct call_messages {
    std::uint64_t reduce = 0;     ///< the exchange alone: its messages to the finisher
    std::uint64_t unbuffered = 0; ///< the same without a send buffer (one message per root, one per empty block's report)
    std::uint64_t all_reduce = 0; ///< exchange plus broadcast: what all_reduce() and reduce() send
};

/// Counts for the direct exchange (`unbuffered` is model::direct_messages plus the empty
/// blocks' reports).
call_messages direct_call_messages(const layout::block_layout& layout, plan::direct_buffering rules = {});

/// Counts for the tree exchange (it has no buffer, so `unbuffered` equals `reduce`).
call_messages tree_call_messages(const layout::block_layout& layout);

/// The bound (p - 1) * (log2((N - 1) / p) + 1) on the direct exchange's messages. Empty
/// when N - 1 < p: the logarithm is then negative and the formula no longer bounds anything
/// (even the tree needs p - 1 messages).
std::optional<double> message_bound(index_tree::index_t n, int p);

} // namespace treefold::model
