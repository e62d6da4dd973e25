#pragma once
/// Collective agreements a call makes where its exchange alone cannot tell every rank: that
/// some rank failed (an operator throwing in a rank's last combine of an allreduce schedule,
/// where no message follows), and the opt-in checks that the ranks made the same call.

#include "treefold/config.hpp"
#include "treefold/error.hpp"
#include "treefold/net/transport.hpp"

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <climits>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace treefold::net {

/// Collective: afterwards every rank holds a failure if any rank did (a rank keeps a
/// `complete` one; the others take the failure of the lowest rank with a complete one, or
/// with any one where none is). A failure read from a fixed-size record whose text may have
/// been cut is not complete. One MPI_Allreduce of an int while nothing failed, plus a
/// broadcast of the record when something did.
void agree_on_failure(const boost::mpi::communicator& comm, maybe_failure& failed, counters& count,
                      bool complete = true);

/// What the opt-in checks compare across ranks, per call.
struct call_signature {
    std::int64_t root = -1;      ///< reduce's root; -1 for all_reduce
    std::int64_t values = 0;     ///< the size of this rank's span
    std::int64_t expected = 0;   ///< the size of this rank's block
    std::uint64_t op_identity = 0; ///< a hash of the operator's type name
    std::uint64_t element_identity = 0; ///< a hash of the element type's name and size
    bool nonblocking = false;    ///< iall_reduce / ireduce rather than all_reduce / reduce
};

/// Collective (one MPI_Allgather of 40 bytes per rank): throws the same exception on every
/// rank if the ranks' roots, call forms, element types or operator types differ
/// (call_mismatch) or any rank's size is wrong (local_size_error). Every rank decides from the
/// same gathered data, so all throw or none does.
void check_same_call(const boost::mpi::communicator& comm, const call_signature& mine, counters& count);

} // namespace treefold::net
