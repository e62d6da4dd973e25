#pragma once
// Shared by the MPI benchmark programs that time repeated calls (automatic_regret, call_breakdown).

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/timer.hpp>

#include <cstdint>
#include <functional>

namespace treefold::perf {

/// Seconds per call of `calls` calls of `run` (its result discarded), on the slowest rank;
/// the ranks start together.
template <class F>
double slowest_seconds_per_call(const boost::mpi::communicator& comm, std::uint64_t calls, F&& run)
{
    comm.barrier();
    const boost::mpi::timer clock;
    for (std::uint64_t i = 0; i < calls; ++i) {
        (void)run();
    }
    const double mine = clock.elapsed() / static_cast<double>(calls);
    return boost::mpi::all_reduce(comm, mine, boost::mpi::maximum<double>());
}

/// Seconds per call as above, but with a barrier before each call and only the calls timed
/// (a call that starts with every rank ready, as in an iterative solver's step).
template <class F>
double slowest_seconds_per_synced_call(const boost::mpi::communicator& comm, std::uint64_t calls, F&& run)
{
    double mine = 0;
    for (std::uint64_t i = 0; i < calls; ++i) {
        comm.barrier();
        const boost::mpi::timer clock;
        (void)run();
        mine += clock.elapsed();
    }
    return boost::mpi::all_reduce(comm, mine / static_cast<double>(calls), boost::mpi::maximum<double>());
}

} // namespace treefold::perf
