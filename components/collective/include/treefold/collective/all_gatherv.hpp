#pragma once
/// In-place allgatherv and sum-allreduce over a Boost.MPI communicator (raw MPI: Boost.MPI's
/// all_gatherv has no in-place form, and its inplace() binds MPI_IN_PLACE to a T&, undefined
/// behaviour that UBSan flags).

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/datatype.hpp>

#include <numeric>
#include <span>
#include <stdexcept>
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

/// Every rank's `data` becomes the element-wise MPI_SUM of all ranks' `data` (the MPI
/// library's order: not reproducible). Collective; the same size on every rank, at most
/// INT_MAX elements. Throws std::runtime_error if MPI reports an error.
template <class T>
void sum_in_place(comm_view comm, std::span<T> data)
{
    if (MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(data.size()), boost::mpi::get_mpi_datatype<T>(),
                      MPI_SUM, static_cast<MPI_Comm>(comm.get())) != MPI_SUCCESS) {
        throw std::runtime_error("treefold: MPI_Allreduce failed");
    }
}

} // namespace treefold::collective
