// exchange::automatic's choice where it needs no type (automatic.hpp, settled_choice), and its
// calibration for values that travel as 4 or 8 raw bytes, compiled once here: the calibration
// reads no value and calls no operator, so a stand-in of the same size and alignment sends
// exactly the messages the user's type would (stand_in_bytes).
#include "treefold/exchange/automatic.hpp"

#include <boost/mpi/collectives.hpp>

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace treefold::exchange::detail {
namespace {

template <std::size_t Bytes>
struct alignas(Bytes) stand_in {
    std::byte bytes[Bytes];
};

} // namespace

int settled_choice(const boost::mpi::communicator& comm, const layout::block_layout& layout, bool own_codec,
                   const choice_key& key)
{
    namespace mpi = boost::mpi;
    // Agree on the forced choice (equal on every rank, and known) and on the
    // calibration file (readable on every rank): -3 marks a file that is not.
    const std::span<const std::string_view> names(automatic_candidates::names);
    const int forced = load_calibration_file(names) ? forced_candidate(names) : -3;
    const std::pair<int, int> mine{forced, -forced};
    std::pair<int, int> range{};
    mpi::all_reduce(comm, mine, range, [](const std::pair<int, int>& a, const std::pair<int, int>& b) {
        return std::pair<int, int>{std::min(a.first, b.first), std::min(a.second, b.second)};
    });
    if (range.first == -3) {
        throw std::invalid_argument("treefold: TREEFOLD_CALIBRATION names a file that cannot be read, "
                                    "holds a line other than 'p level bytes exchange', or was timed "
                                    "under another MPI library than this one (" +
                                    mpi_library() + "), on some rank");
    }
    if (range.first != -range.second) {
        throw std::invalid_argument(
            "treefold: the forced exchange (TREEFOLD_EXCHANGE or a C context's option) differs between ranks");
    }
    if (range.first == -2) {
        throw std::invalid_argument("treefold: TREEFOLD_EXCHANGE names no exchange automatic can choose (" +
                                    name_list<automatic_candidates>() + ")");
    }
    if (range.first >= 0) {
        return range.first;
    }
    if (comm.size() == 1 || layout.size() == 0) {
        return 1; // nothing to exchange (or no call can succeed): no calibration
    }
    if (own_codec) {
        // A type with its own codec (row_reducer's rows) decodes only inside its
        // reducer's call, so it cannot be timed here: the direct exchange, which
        // sends each frontier node once, without calibration.
        return 2;
    }
    const int cached = cached_choice(key);
    // Use a cached choice only when every rank has one, and then rank 0's.
    std::pair<int, int> agreed{cached < 0 ? 0 : 1, cached};
    mpi::broadcast(comm, agreed.second, 0);
    agreed.first = mpi::all_reduce(comm, agreed.first, mpi::minimum<int>());
    return agreed.first == 1 ? agreed.second : -1;
}

int calibrate_stand_in(const boost::mpi::communicator& comm, const layout::block_layout& layout, std::size_t bytes)
{
    switch (bytes) {
    case 4:
        return automatic::plan<stand_in<4>>::calibrate_typed(comm, layout);
    case 8:
        return automatic::plan<stand_in<8>>::calibrate_typed(comm, layout);
    default:
        throw std::logic_error("treefold: no compiled calibration for values of this size (internal error)");
    }
}

} // namespace treefold::exchange::detail
