#pragma once
/// In-place allgatherv over a Boost.MPI communicator (raw MPI: Boost.MPI's all_gatherv has no
/// in-place form).

#include "treefold/comm_view.hpp"

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/datatype.hpp>

#include <numeric>
#include <span>
#include <vector>

namespace treefold::collective {

/// Rank r's block is the sizes[r] values of `data` after the blocks of ranks < r; each rank
/// fills its own block beforehand and afterwards holds every rank's. Collective; `sizes` (one
/// per rank, summing to at most data.size()) must be the same on every rank.
template <class T>
void all_gatherv_in_place(comm_view comm, std::span<T> data, const std::vector<int>& sizes)
{
    std::vector<int> displs(sizes.size());
    std::exclusive_scan(sizes.begin(), sizes.end(), displs.begin(), 0);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data.data(), sizes.data(), displs.data(),
                   boost::mpi::get_mpi_datatype<T>(), static_cast<MPI_Comm>(comm.get()));
}

} // namespace treefold::collective
