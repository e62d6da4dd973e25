#pragma once
/// Distributing values held by one rank over a block layout (load once, scatter once).

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"
#include "treefold/io/values_file.hpp"
#include "treefold/layout/block_layout.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstdint>
#include <filesystem>
#include <vector>

namespace treefold::collective {

/// Collective: rank `root` reads `path`; returns the value count N on every
/// rank and leaves the values in `all` on the root only (io::read_values). A read error on the
/// root is broadcast, so every rank throws the same io::file_error (no rank is left waiting).
std::uint64_t read_on_root(comm_view comm, const std::filesystem::path& path,
                           std::vector<double>& all, int root = 0);

/// Collective: rank `root` passes all layout.size() values in global index order (the other
/// ranks' `all` is ignored); every rank gets its block of `layout` (blocks in any order).
/// Throws std::invalid_argument on every rank, before any data moves, when the root's vector
/// does not hold layout.size() values, the layout's rank count differs from the
/// communicator's, or a block is too large for one MPI count (2^31 − 1 values).
std::vector<double> scatter_blocks(comm_view comm, const std::vector<double>& all,
                                   const layout::block_layout& layout, int root = 0);

} // namespace treefold::collective
