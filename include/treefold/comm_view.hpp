#pragma once
/// The communicator argument of every treefold entry point: a boost::mpi::communicator or a
/// raw MPI_Comm (from plain MPI, MPL, KaMPIng, mpi4py, ...).

#include "treefold/config.hpp"
#include "treefold/net/transport.hpp"

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <memory>
#include <stdexcept>

namespace treefold {

/// Refers to the caller's communicator for the duration of one call. It neither duplicates
/// nor frees anything: the entry point that keeps a communicator (a reducer, the one-call
/// functions' cache) duplicates it with MPI_Comm_dup and frees its duplicate itself, so the
/// caller's communicator need only be valid during the call. MPI_COMM_NULL (or a null
/// Boost.MPI communicator) and intercommunicators throw std::invalid_argument on the rank
/// that passes them.
class comm_view {
public:
    /// A Boost.MPI communicator (referred to, not copied).
    comm_view(const boost::mpi::communicator& comm) : ref_(&comm) { check(comm); }

    /// A raw MPI communicator (attached, never freed by treefold).
    comm_view(MPI_Comm comm)
    {
        check(comm);
        attached_ = std::make_shared<const boost::mpi::communicator>(comm, boost::mpi::comm_attach);
    }

    /// The communicator as Boost.MPI sees it.
    const boost::mpi::communicator& get() const { return attached_ ? *attached_ : *ref_; }
    /// The communicator as Boost.MPI sees it (get(), implicitly).
    operator const boost::mpi::communicator&() const { return get(); }
    /// This process's rank in the communicator.
    int rank() const { return get().rank(); }
    /// The communicator's size p.
    int size() const { return get().size(); }

private:
    // Every C++ entry point passes here (MPI would abort inside the call on MPI_COMM_NULL).
    static void check(MPI_Comm comm)
    {
        if (const char* why = net::unusable_communicator(comm)) {
            throw std::invalid_argument(why);
        }
    }

    const boost::mpi::communicator* ref_ = nullptr;
    // Shared, not std::optional: copies stay cheap, and g++ 12 misreads an optional Boost.MPI
    // communicator as maybe-uninitialized.
    std::shared_ptr<const boost::mpi::communicator> attached_;
};

} // namespace treefold
