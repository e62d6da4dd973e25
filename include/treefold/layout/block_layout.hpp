#pragma once
/// Block layouts: which contiguous block of the N global indices each rank holds.

#include "treefold/config.hpp"
#include "treefold/index_tree/node.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace treefold::layout {

using index_tree::index_t;

/// A rank's block [start, start + count). An empty block (count 0) has no meaningful start.
struct block {
    index_t start = 0; ///< the first global index held
    index_t count = 0; ///< the number of indices held
    /// One past the last index held (start + count).
    index_t end() const { return start + count; }
    /// Equal start and count.
    friend bool operator==(const block&, const block&) = default;
};

/// How N indices are split over p ranks: one block per rank, the non-empty blocks tiling
/// [0, N) without gap or overlap, in rank order or in any permuted order. Owner lookup is
/// O(log p). No MPI here: agreeing on a layout across ranks is the plan's job.
class block_layout {
public:
    block_layout() = default;

    /// Blocks in rank order: rank r holds counts[r] indices after those of ranks < r.
    /// Throws std::invalid_argument if the total exceeds index_tree::max_size.
    static block_layout from_counts(std::span<const index_t> counts);

    /// Blocks as each rank declares them (blocks[r] for rank r, any order). Throws
    /// std::invalid_argument naming the first gap, overlap or overflow found.
    static block_layout from_blocks(std::vector<block> blocks);

    /// Total number of indices N.
    index_t size() const { return n_; }
    /// Number of ranks p.
    int ranks() const { return static_cast<int>(blocks_.size()); }
    /// Block of `rank`.
    const block& block_of(int rank) const { return blocks_.at(static_cast<std::size_t>(rank)); }
    /// All blocks, indexed by rank.
    std::span<const block> blocks() const { return blocks_; }
    /// The rank holding `index` (< N), by binary search over the non-empty blocks.
    int owner(index_t index) const;
    /// Non-empty ranks in index order, followed by the empty ranks in rank order.
    std::span<const int> index_order() const { return order_; }
    /// Number of non-empty blocks.
    int nonempty_ranks() const { return nonempty_; }
    /// Largest block size.
    index_t max_count() const;
    /// Smallest block size.
    index_t min_count() const;
    /// A 64-bit digest of N and every block (used to check that ranks agree).
    std::uint64_t fingerprint() const;

    /// The same N and the same block for every rank.
    friend bool operator==(const block_layout& a, const block_layout& b)
    {
        return a.n_ == b.n_ && a.blocks_ == b.blocks_;
    }

private:
    index_t n_ = 0;
    int nonempty_ = 0;
    std::vector<block> blocks_;
    std::vector<int> order_;          // see index_order()
    std::vector<index_t> starts_;     // starts of the non-empty blocks, ascending
};

} // namespace treefold::layout
