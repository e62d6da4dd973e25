#include "treefold/model/plan_messages.hpp"

#include "treefold/plan/generators.hpp"
#include "treefold/model/message_count.hpp"

#include <cmath>
#include <stdexcept>

namespace treefold::model {

using index_tree::index_t;
using layout::block_layout;


std::uint64_t direct_rank_messages(const block_layout& layout, int rank, plan::direct_buffering rules)
{
    return plan::direct(layout, rank, rules).sends.size();
}

std::uint64_t direct_exchange_messages(const block_layout& layout, plan::direct_buffering rules)
{
    std::uint64_t total = 0;
    for (int r = 0; r < layout.ranks(); ++r) {
        total += direct_rank_messages(layout, r, rules);
    }
    return total;
}

std::uint64_t tree_exchange_messages(const block_layout& layout)
{
    return broadcast_messages(layout.ranks()); // p - 1 as well
}

std::uint64_t broadcast_messages(int p) { return p > 0 ? static_cast<std::uint64_t>(p - 1) : 0; }

namespace {

/// An exchange's counts with the reducer's broadcast added for all_reduce.
call_messages with_broadcast(const block_layout& layout, std::uint64_t reduce, std::uint64_t unbuffered)
{
    return {reduce, unbuffered, reduce + broadcast_messages(layout.ranks())};
}

} // namespace

std::uint64_t empty_block_reports(const block_layout& layout)
{
    std::uint64_t reports = 0;
    for (int r = 0; r < layout.ranks(); ++r) {
        reports += layout.size() > 0 && layout.block_of(r).count == 0 ? 1 : 0;
    }
    return reports;
}

call_messages direct_call_messages(const block_layout& layout, plan::direct_buffering rules)
{
    return with_broadcast(layout, direct_exchange_messages(layout, rules),
                          direct_messages(layout) + empty_block_reports(layout));
}

call_messages tree_call_messages(const block_layout& layout)
{
    const auto sent = tree_exchange_messages(layout);
    return with_broadcast(layout, sent, sent);
}

std::optional<double> message_bound(index_t n, int p)
{
    if (p < 1 || n < 1 || n - 1 < static_cast<index_t>(p)) {
        return std::nullopt;
    }
    const double ratio = static_cast<double>(n - 1) / static_cast<double>(p);
    return static_cast<double>(p - 1) * (std::log2(ratio) + 1.0);
}

} // namespace treefold::model
