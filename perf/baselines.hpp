#pragma once
// The irreproducible baselines the MPI benchmark programs compare treefold with.

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <cstddef>

namespace treefold::perf {

/// The -ffast-math vectorised sum of kernel_fastmath_ceiling.cpp (irreproducible).
double fastmath_sum(const double* x, std::size_t n);
/// The -ffast-math vectorised dot product of kernel_fastmath_ceiling.cpp (irreproducible).
double fastmath_dot(const double* x, const double* y, std::size_t n);

/// MPI_Allreduce of one double with MPI_SUM: how the usual code combines its partial sums.
inline double mpi_sum(double local, const boost::mpi::communicator& comm)
{
    double total = 0.0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
    return total;
}

} // namespace treefold::perf
