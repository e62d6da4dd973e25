#pragma once
/// Block layouts: which contiguous block of the N global indices each rank holds.

#include "treefold/config.hpp"
#include "treefold/index_tree/node.hpp"

#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// Distribution policies: per-rank counts for N indices over p ranks (blocks in rank order).
namespace treefold::layout {

using index_tree::index_t;

/// q = N / p each, the remainder N mod p one extra on the lowest ranks.
std::vector<index_t> even_lower(index_t n, int p);

/// q = N / p each, the remainder one extra on the highest ranks.
std::vector<index_t> even_upper(index_t n, int p);

/// 2^floor(log2(N / p)) on every rank but the last, which takes the rest. When N < p the
/// power is taken as 0: the last rank holds everything (documented corner).
std::vector<index_t> power_of_two(index_t n, int p);

/// even_upper, with each start moved down to the index with the most trailing zero bits
/// that stays within alpha * N / p of the even start (and not below the previous start).
/// Aligned starts make block boundaries fall on big subtrees: fewer outbound messages.
std::vector<index_t> aligned(index_t n, int p, double alpha);

/// A distribution policy chosen at run time (the command line's --distribution).
struct distribution {
    /// Which of the functions above computes the counts.
    enum class kind { even_lower, even_upper, power_of_two, aligned };
    kind which = kind::even_upper; ///< the reducers' default distribution
    double alpha = 0.0; ///< only for kind::aligned

    /// Counts for N over p.
    std::vector<index_t> counts(index_t n, int p) const;
    /// The spelling parse() accepts: even-lower, even-upper, power-of-two, aligned:ALPHA.
    std::string name() const;
    /// Parses a name; throws std::invalid_argument naming what is wrong.
    static distribution parse(std::string_view text);
};

/// A distribution policy: `d.counts(n, p)` returns p block sizes summing to n, rank r's
/// block following those of ranks < r. Every rank computes the same counts from (n, p), so
/// a reducer built from N and a policy needs no exchange to find its blocks.
template <class D>
concept distribution_policy = requires(const D& d, index_t n, int p) {
    { d.counts(n, p) } -> std::same_as<std::vector<index_t>>;
};

} // namespace treefold::layout

/// The distribution policies as types, the reducer's fourth axis (treefold::reducer's
/// constructor from N takes one; layout::distribution is the same choice made at run time).
namespace treefold::dist {

/// layout::even_lower: the remainder on the lowest ranks.
struct even_lower {
    /// p block sizes summing to n (layout::even_lower(n, p)).
    std::vector<layout::index_t> counts(layout::index_t n, int p) const { return layout::even_lower(n, p); }
};

/// layout::even_upper: the remainder on the highest ranks (the reducer's default).
struct even_upper {
    /// p block sizes summing to n (layout::even_upper(n, p)).
    std::vector<layout::index_t> counts(layout::index_t n, int p) const { return layout::even_upper(n, p); }
};

/// layout::power_of_two: 2^k elements per rank, the rest on the last.
struct power_of_two {
    /// p block sizes summing to n (layout::power_of_two(n, p)).
    std::vector<layout::index_t> counts(layout::index_t n, int p) const { return layout::power_of_two(n, p); }
};

/// layout::aligned: starts moved to big subtrees within alpha * N / p of the even start.
struct aligned {
    /// How far a start may move, as a fraction of the even block size N / p.
    double alpha = 0.2;
    /// p block sizes summing to n (layout::aligned(n, p, alpha)).
    std::vector<layout::index_t> counts(layout::index_t n, int p) const { return layout::aligned(n, p, alpha); }
};

} // namespace treefold::dist

namespace treefold::layout {

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
    std::vector<block> blocks_;
    std::vector<int> order_;          // see index_order()
    std::vector<index_t> starts_;     // starts of the non-empty blocks, ascending
};

} // namespace treefold::layout
