#include "treefold/layout/block_layout.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace treefold::layout {

block_layout block_layout::from_counts(std::span<const index_t> counts)
{
    std::vector<block> blocks(counts.size());
    index_t start = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        if (counts[r] > index_tree::max_size - start) {
            throw std::invalid_argument("treefold: block counts add up to more than 2^63 indices");
        }
        blocks[r] = block{start, counts[r]};
        start += counts[r];
    }
    return from_blocks(std::move(blocks));
}

block_layout block_layout::from_blocks(std::vector<block> blocks)
{
    block_layout l;
    const int p = static_cast<int>(blocks.size());
    std::vector<int> nonempty;
    for (int r = 0; r < p; ++r) {
        block& b = blocks[static_cast<std::size_t>(r)];
        if (b.count == 0) {
            b.start = 0; // an empty block has no position: its start means nothing, whatever it is
            continue;
        }
        if (b.count > index_tree::max_size || b.start > index_tree::max_size - b.count) {
            std::ostringstream msg;
            msg << "treefold: rank " << r << " declares block [" << b.start << ", +" << b.count
                << ") past the largest supported index 2^63";
            throw std::invalid_argument(msg.str());
        }
        nonempty.push_back(r);
    }
    std::stable_sort(nonempty.begin(), nonempty.end(), [&](int a, int b) {
        return blocks[static_cast<std::size_t>(a)].start < blocks[static_cast<std::size_t>(b)].start;
    });
    index_t expected = 0;
    for (int r : nonempty) {
        const block& b = blocks[static_cast<std::size_t>(r)];
        if (b.start != expected) {
            std::ostringstream msg;
            msg << "treefold: block layout has " << (b.start > expected ? "a gap" : "an overlap")
                << " at index " << std::min(b.start, expected) << ": rank " << r << " starts at "
                << b.start << " but the blocks before it end at " << expected;
            throw std::invalid_argument(msg.str());
        }
        expected = b.end();
    }
    l.n_ = expected;
    l.order_ = nonempty;
    for (int r = 0; r < p; ++r) {
        if (blocks[static_cast<std::size_t>(r)].count == 0) {
            l.order_.push_back(r);
        }
    }
    for (int r : nonempty) {
        l.starts_.push_back(blocks[static_cast<std::size_t>(r)].start);
    }
    l.blocks_ = std::move(blocks);
    return l;
}

int block_layout::owner(index_t index) const
{
    if (index >= n_) {
        throw std::out_of_range("treefold: owner of an index past N");
    }
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), index);
    return order_[static_cast<std::size_t>(it - starts_.begin() - 1)];
}

index_t block_layout::max_count() const
{
    return blocks_.empty() ? 0 : std::ranges::max(blocks_, {}, &block::count).count;
}

index_t block_layout::min_count() const
{
    return blocks_.empty() ? 0 : std::ranges::min(blocks_, {}, &block::count).count;
}

std::uint64_t block_layout::fingerprint() const
{
    // FNV-1a over N, p and every (start, count).
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](std::uint64_t v) {
        for (int i = 0; i < 8; ++i) {
            h ^= (v >> (8 * i)) & 0xffU;
            h *= 1099511628211ULL;
        }
    };
    mix(n_);
    mix(blocks_.size());
    for (const auto& b : blocks_) {
        mix(b.start);
        mix(b.count);
    }
    return h;
}

} // namespace treefold::layout
