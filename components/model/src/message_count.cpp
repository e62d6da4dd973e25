#include "treefold/model/message_count.hpp"

#include <bit>

namespace treefold::model {

using index_tree::index_t;
using layout::block_layout;


std::uint64_t outbound_roots(index_t s, index_t e)
{
    if (s == 0 || e <= s) {
        return 0; // index 0 starts no right child; an empty block sends nothing
    }
    const index_t a = s - 1;
    const index_t b = e - 1;
    if (a == b) {
        return 0;
    }
    const int top = 63 - std::countl_zero(a ^ b);
    const index_t mask = top >= 63 ? ~index_t{0} : (index_t{1} << (top + 1)) - 1;
    return static_cast<std::uint64_t>(std::popcount(~a & mask));
}

std::uint64_t direct_messages(const block_layout& layout)
{
    std::uint64_t total = 0;
    for (const auto& b : layout.blocks()) {
        total += outbound_roots(b.start, b.end());
    }
    return total;
}

std::uint64_t direct_messages_brute_force(const block_layout& layout)
{
    std::uint64_t total = 0;
    for (index_t i = 1; i < layout.size(); ++i) {
        const index_t parent_start = i - (i & (~i + 1));
        if (layout.owner(i) != layout.owner(parent_start)) {
            ++total;
        }
    }
    return total;
}

double score(const block_layout& layout, score_params params)
{
    return params.t_send * static_cast<double>(direct_messages(layout)) +
           params.t_op * static_cast<double>(layout.max_count());
}

} // namespace treefold::model
