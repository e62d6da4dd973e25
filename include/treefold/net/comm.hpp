#pragma once
/// The private communicators treefold's collectives talk on, so that their messages never
/// meet the caller's or another library's.

#include "treefold/config.hpp"

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <typeinfo>

namespace treefold::net {

/// Why `comm` cannot carry a treefold call — MPI_COMM_NULL, a handle MPI rejects, an
/// intercommunicator (treefold reduces within one group), or a process the other MPI
/// implementation's launcher started that initialised MPI alone (src/net/launcher.hpp) — or
/// nullptr when it can. Every
/// entry point's one communicator check (C++: std::invalid_argument; C: MPI_ERR_COMM). Local.
const char* unusable_communicator(MPI_Comm comm);

/// The private duplicate of `comm` (errors return instead of aborting). Created on the first
/// call with `comm` (collective: every rank of comm must call) and cached on `comm` as an
/// attribute, freed when `comm` is freed; duplicates of `comm` get their own. Returns an MPI
/// error code, MPI_SUCCESS when *out is set.
int private_comm(MPI_Comm comm, MPI_Comm* out);

/// The private communicator as a Boost.MPI communicator (not owning it); throws
/// std::runtime_error if it cannot be created.
inline boost::mpi::communicator private_communicator(const boost::mpi::communicator& comm)
{
    MPI_Comm dup = MPI_COMM_NULL;
    const int rc = private_comm(static_cast<MPI_Comm>(comm), &dup);
    if (rc != MPI_SUCCESS) {
        throw std::runtime_error("treefold: could not duplicate the communicator (MPI error " +
                                 std::to_string(rc) + ")");
    }
    return boost::mpi::communicator(dup, boost::mpi::comm_attach);
}

/// A plan kept on a user's communicator by the one-call functions (type-erased).
struct cached_plan {
    virtual ~cached_plan() = default;
};

/// The slot for `key` in the plan cache attached to `comm` (an empty pointer until the caller
/// fills it). The cache is an attribute of `comm`: duplicates of `comm` start with their own,
/// and its plans are destroyed when `comm` is freed or, at the latest, when MPI_Finalize
/// starts (while MPI can still free the plans' communicators). Not collective; not
/// thread-safe for concurrent calls on the same communicator. Throws std::runtime_error if
/// MPI refuses the attribute.
std::unique_ptr<cached_plan>& cached_plan_slot(MPI_Comm comm, const std::type_info& key);

} // namespace treefold::net
