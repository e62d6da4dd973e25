#pragma once
/// The generators of rank schedules (plan/schedule.hpp), compiled into the library: no
/// template on the element type or the operator. An exchange of the registry names its
/// generator in `static plan::rank_schedule schedule(const layout::block_layout&, int rank)`;
/// adding an exchange is one such function (here, or in a component) and one registry line.
/// No MPI here.

#include "treefold/config.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/plan/schedule.hpp"

#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace treefold::topology {
struct tree_child;
class schedule;
} // namespace treefold::topology

namespace treefold::plan {

/// The direct exchange's send buffer: values per message, and the size of a local node
/// before which the buffer is flushed (so a large node's work does not hold messages back).
struct direct_buffering {
    std::size_t values_per_message = 4;             ///< a full buffer is flushed at once
    index_tree::index_t flush_before_elements = 64; ///< a local node larger than this flushes first
};

/// The direct exchange: a rank pushes its block's maximal nodes and, in index order, the
/// pieces it is owed; an outbound subtree root on top of its stack goes to the owner of its
/// parent (buffered: `rules`); the owner of index 0 ends with the root. A rank with an empty
/// block sends the finisher an empty report, so a wrong size there is never lost.
rank_schedule direct(const layout::block_layout& layout, int rank, direct_buffering rules = {});

/// A tree shape's functions, read at run time (exchange::tree passes its Shape's).
struct shape_functions {
    const char* name = "";                                              ///< the exchange's name
    int (*root)(int p) = nullptr;                                       ///< the root position
    int (*parent)(int position, int p) = nullptr;                       ///< -1 at the root
    std::vector<topology::tree_child> (*children)(int position, int p) = nullptr; ///< by position
};
/// A rank-ordered tree exchange: positions are the ranks in index order; a position posts
/// its children's receives, computes its block, merges (children before it, its own nodes,
/// children after it) and sends its subtree's frontier to its parent. The root position ends
/// with the root; `mpi_broadcast` sends the result on through MPI_Bcast (a dual tree).
rank_schedule tree(const layout::block_layout& layout, int rank, const shape_functions& shape, bool mpi_broadcast);

/// An allreduce schedule (topology/schedule.hpp) over the positions: every rank computes its
/// frontier, then each round sends it to the round's targets and merges the partials it
/// receives, left to right; every rank ends with the root. `name` is the exchange's.
rank_schedule allreduce(const layout::block_layout& layout, int rank, const topology::schedule& s, const char* name);

/// An exchange whose every rank runs a schedule: `E::schedule(layout, rank)` gives it.
template <class E>
concept scheduled_exchange = requires(const layout::block_layout& l, int rank) {
    { E::schedule(l, rank) } -> std::same_as<rank_schedule>;
};

/// Every rank's schedule of one generator (index r: rank r), e.g. for plan::verify or counts.
template <class Generator>
std::vector<rank_schedule> all_ranks(const layout::block_layout& layout, Generator&& make)
{
    std::vector<rank_schedule> out;
    out.reserve(static_cast<std::size_t>(layout.ranks()));
    for (int r = 0; r < layout.ranks(); ++r) {
        out.push_back(make(layout, r));
    }
    return out;
}

} // namespace treefold::plan
