#pragma once
/// Messages per reducer call, computed from the layout alone (no communicator, no ranks).
///
/// Every exchange decides what it sends from the layout before any value exists: the direct
/// exchange from its routes (which subtree roots leave a block and in what order they appear
/// on the rank's frontier), the tree exchange from the shape (one frontier per non-root
/// position). So the counts of a call at any p can be computed in one process, and the tests
/// check them against what the reducer actually counts.

#include "treefold/config.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/detail/layout/routes.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace treefold::layout {

/// Messages rank `rank` sends in one call of the direct exchange, replaying its run with
/// nodes only: local nodes and then incoming pieces are pushed onto a frontier in index
/// order; an outbound root on top goes to the buffer, which is flushed when the target
/// changes, when it is full, before a large local node, before every receive and at the
/// end. An empty block sends one report to the finisher. O(log N) per rank.
std::uint64_t direct_rank_messages(const block_layout& layout, int rank, direct_buffering rules = {});

/// One step of a rank's part in the direct exchange, in the order the rank takes it.
struct direct_step {
    /// What the step does.
    enum class kind {
        local,   ///< a local node computed and pushed: `values` elements of the block
        send,    ///< a message of `values` values to `peer` (0 values: an empty block's report)
        receive, ///< one incoming piece from `peer` (several may share one message)
        report   ///< on the finisher, after its own work: the report of the empty block of `peer`
    };
    kind what = kind::local;  ///< the kind of step
    int peer = -1;            ///< target (send) or source (receive, report); -1 for local
    std::uint64_t values = 0; ///< elements (local), values in the message (send), 1 (receive), 0 (report)
};

/// The steps rank `rank` takes in one call of the direct exchange (the replay that
/// direct_rank_messages counts; a task-graph simulator turns them into tasks). O(log N).
std::vector<direct_step> direct_rank_steps(const block_layout& layout, int rank, direct_buffering rules = {});

/// Reports of empty blocks to the finisher under the direct and one-sided exchanges: one
/// per empty block (none when N = 0).
std::uint64_t empty_block_reports(const block_layout& layout);

/// Messages of the direct exchange summed over all ranks (with buffering): O(p log N).
std::uint64_t direct_exchange_messages(const block_layout& layout, direct_buffering rules = {});

/// Messages of the tree exchange (any shape) summed over ranks: every position but the
/// shape's root sends its subtree's frontier once, empty ranks included (they send an empty
/// frontier, so the shape never changes with the layout): p - 1.
std::uint64_t tree_exchange_messages(const block_layout& layout);

/// Messages of the reducer's binomial broadcast of the root after the exchange in
/// all_reduce: every rank but the finisher receives once, p - 1.
std::uint64_t broadcast_messages(int p);

/// Message counts of one exchange for one layout (totals over ranks, per call).
struct call_messages {
    std::uint64_t reduce = 0;     ///< the exchange alone: its messages to the finisher
    std::uint64_t unbuffered = 0; ///< the same without a send buffer (one message per root, one per empty block's report)
    std::uint64_t all_reduce = 0; ///< exchange plus broadcast: what all_reduce() and reduce() send
};

/// Counts for the direct exchange (`unbuffered` is layout::direct_messages plus the empty
/// blocks' reports).
call_messages direct_call_messages(const block_layout& layout, direct_buffering rules = {});

/// Counts for the tree exchange (it has no buffer, so `unbuffered` equals `reduce`).
call_messages tree_call_messages(const block_layout& layout);

/// Counts for the one-sided exchange: the direct exchange's routes with no send buffer, each
/// outbound root one queue message (so `reduce` equals `unbuffered`), one report per empty
/// block, plus the broadcast.
call_messages one_sided_call_messages(const block_layout& layout);

/// The bound (p - 1) * (log2((N - 1) / p) + 1) on the direct exchange's messages. Empty
/// when N - 1 < p: the logarithm is then negative and the formula no longer bounds anything
/// (even the tree needs p - 1 messages).
std::optional<double> message_bound(index_t n, int p);

} // namespace treefold::layout
