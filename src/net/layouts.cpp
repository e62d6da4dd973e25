// Collective construction and checking of block layouts (layouts.hpp): compiled once here
// instead of in every program.
#include "treefold/layouts.hpp"

#include <boost/mpi/collectives/all_gather.hpp>

#include <array>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace treefold {

layout::block_layout layout_from_local_size(comm_view comm, std::uint64_t local_count)
{
    std::vector<std::uint64_t> counts;
    boost::mpi::all_gather(comm, local_count, counts);
    return layout::block_layout::from_counts(counts);
}

layout::block_layout layout_from_block(comm_view comm, std::uint64_t start, std::uint64_t count)
{
    const std::array<std::uint64_t, 2> mine{start, count};
    std::vector<std::uint64_t> all;
    boost::mpi::all_gather(comm, mine.data(), 2, all);
    std::vector<layout::block> blocks(static_cast<std::size_t>(comm.size()));
    for (std::size_t r = 0; r < blocks.size(); ++r) {
        blocks[r] = layout::block{all[2 * r], all[2 * r + 1]};
    }
    return layout::block_layout::from_blocks(std::move(blocks));
}

void verify_same_layout(const boost::mpi::communicator& comm, const layout::block_layout& layout,
                        std::uint64_t width)
{
    constexpr std::size_t fields = 4;
    const std::array<std::uint64_t, fields> mine{layout.size(), static_cast<std::uint64_t>(layout.ranks()),
                                                 layout.fingerprint(), width};
    std::vector<std::uint64_t> all;
    boost::mpi::all_gather(comm, mine.data(), fields, all);
    const auto p = static_cast<std::uint64_t>(comm.size());
    for (std::uint64_t r = 0; r < p; ++r) {
        const std::uint64_t n = all[fields * r];
        const std::uint64_t ranks = all[fields * r + 1];
        const std::uint64_t digest = all[fields * r + 2];
        const std::uint64_t k = all[fields * r + 3];
        std::ostringstream msg;
        if (ranks != p) {
            msg << "treefold: rank " << r << "'s layout has " << ranks << " block(s) but the communicator has "
                << p << " rank(s)";
        } else if (n != all[0]) {
            msg << "treefold: ranks disagree on the layout: rank 0 has N = " << all[0] << ", rank " << r
                << " has N = " << n;
        } else if (digest != all[2]) {
            msg << "treefold: ranks disagree on the layout's blocks: rank " << r << " differs from rank 0";
        } else if (k == 0) {
            msg << "treefold: row width must be positive (rank " << r << " has 0)";
        } else if (k != all[3]) {
            msg << "treefold: ranks disagree on the row width: rank 0 has " << all[3] << ", rank " << r << " has "
                << k;
        } else {
            continue;
        }
        throw std::invalid_argument(msg.str());
    }
}

} // namespace treefold
