// The one_sided exchange's cost model (see treefold/rma/one_sided.hpp).
#include "treefold/rma/one_sided.hpp"

#include <vector>

namespace treefold::rma {

one_sided_messages one_sided_call_messages(const layout::block_layout& layout)
{
    std::vector<plan::rank_schedule> ranks;
    ranks.reserve(static_cast<std::size_t>(layout.ranks()));
    for (int r = 0; r < layout.ranks(); ++r) {
        ranks.push_back(one_sided::schedule(layout, r));
    }
    const std::uint64_t exchange = plan::count(ranks).messages;
    return {exchange, exchange + plan::broadcast_messages(ranks.front())};
}

} // namespace treefold::rma
