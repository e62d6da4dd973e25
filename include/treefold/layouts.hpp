#pragma once
/// Collective construction and checking of block layouts. Every function here is
/// collective over `comm`, and when it throws it throws the same std::invalid_argument on
/// every rank (every rank decides from the same gathered data), so no rank is left waiting.

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"
#include "treefold/layout/block_layout.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstdint>

namespace treefold {

/// Blocks in rank order from each rank's local count (an exclusive prefix sum).
layout::block_layout layout_from_local_size(comm_view comm, std::uint64_t local_count);

/// Blocks as each rank declares them: this rank holds [start, start + count). Any order of
/// blocks is allowed; gaps and overlaps throw on every rank.
layout::block_layout layout_from_block(comm_view comm, std::uint64_t start, std::uint64_t count);

/// Checks that every rank of `comm` holds the same layout, with one block per rank, and the
/// same positive element width (row_reducer's k; 1 for the others). Throws
/// std::invalid_argument on every rank otherwise.
void verify_same_layout(const boost::mpi::communicator& comm, const layout::block_layout& layout,
                        std::uint64_t width = 1);

} // namespace treefold
