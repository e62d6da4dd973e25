#pragma once
/// The communicator argument of every treefold entry point: a boost::mpi::communicator or a
/// raw MPI_Comm (from plain MPI, MPL, KaMPIng, mpi4py, ...).

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <optional>
#include <stdexcept>

namespace treefold {

/// Refers to the caller's communicator for the duration of one call. It neither duplicates
/// nor frees anything: the entry point that keeps a communicator (a reducer, the one-call
/// functions' cache) duplicates it with MPI_Comm_dup and frees its duplicate itself, so the
/// caller's communicator need only be valid during the call. MPI_COMM_NULL (or a null
/// Boost.MPI communicator) throws std::invalid_argument on the rank that passes it.
class comm_view {
public:
    /// A Boost.MPI communicator (referred to, not copied).
    comm_view(const boost::mpi::communicator& comm) : ref_(&comm) { check(comm); }

    /// A raw MPI communicator (attached, never freed by treefold).
    comm_view(MPI_Comm comm)
    {
        if (comm == MPI_COMM_NULL) {
            throw std::invalid_argument("treefold: the communicator is MPI_COMM_NULL");
        }
        attached_.emplace(comm, boost::mpi::comm_attach);
    }

    /// The communicator as Boost.MPI sees it.
    const boost::mpi::communicator& get() const { return attached_ ? *attached_ : *ref_; }
    operator const boost::mpi::communicator&() const { return get(); }
    /// This process's rank in the communicator.
    int rank() const { return get().rank(); }
    /// The communicator's size p.
    int size() const { return get().size(); }

private:
    static void check(const boost::mpi::communicator& comm)
    {
        if (static_cast<MPI_Comm>(comm) == MPI_COMM_NULL) {
            throw std::invalid_argument("treefold: the communicator is MPI_COMM_NULL");
        }
    }

    const boost::mpi::communicator* ref_ = nullptr;
    std::optional<boost::mpi::communicator> attached_;
};

} // namespace treefold
