#pragma once
// The C API's argument checks and error mapping, shared by its entry points (treefold_c.cpp)
// and the language bindings built on them: every rank checks its own arguments, the ranks
// agree on the outcome in one all-gather, and every exception maps to one MPI error class.

#include "context.hpp"

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace treefold::capi::detail {

/// An error the C API returns as `error_class` with this message.
class api_error : public std::runtime_error {
public:
    api_error(int error_class, const std::string& what) : std::runtime_error(what), error_class(error_class) {}
    int error_class;
};

/// What this rank found wrong with its own arguments (MPI_SUCCESS: nothing), and the
/// element type and operation they name.
struct local_check {
    int error_class = MPI_SUCCESS;
    std::string message;
    element type = element::none;
    operation op = operation::none;
    std::uint32_t probe = 0; ///< a user-created op: what it makes of probe values (check_arguments)

    /// Records error class `cls` and `why` unless an error is recorded already (the first wins).
    void bad(int cls, std::string why)
    {
        if (error_class == MPI_SUCCESS) {
            error_class = cls;
            message = std::move(why);
        }
    }
};

/// The element type and operation every rank passed.
struct agreed_arguments {
    element type;
    operation op;
};

/// Checks a datatype, an operation and a count on this rank (no communication); a
/// user-created op is applied once to fixed probe values, so the ranks can compare ops.
local_check check_arguments(MPI_Datatype type, MPI_Op op, std::int64_t count);

/// Collective: all-gathers every rank's check and throws the same api_error class on every
/// rank when some rank's arguments are wrong or the ranks name different types or
/// operations, or user-created ops that differ on the probe values (this rank's own message
/// where it is the culprit).
agreed_arguments agree(const boost::mpi::communicator& comm, local_check mine);

/// MPI_ERR_COMM (with the message set) for MPI_COMM_NULL, an invalid handle or an
/// intercommunicator; MPI_SUCCESS otherwise. Local.
int check_comm(MPI_Comm comm);

/// The context for the agreed arguments (collective; api_error MPI_ERR_COUNT for N = 0);
/// `width` > 0: the element-wise context of rows of `width` values.
std::unique_ptr<context> make_any_context(const boost::mpi::communicator& comm, layout::block_layout layout,
                                          agreed_arguments args, MPI_Op op, MPI_Datatype type,
                                          std::uint64_t width = 0);

/// Records `message` as this thread's last error and returns `error_class`.
int fail(int error_class, std::string message);
/// Clears this thread's last error and returns MPI_SUCCESS.
int succeed();
/// Maps the exception being handled to its MPI error class (and records its message).
/// `during_call`: a reduction call, where a wrong local size can only come from a buffer a
/// rank could not use; otherwise context creation.
int fail_current_exception(bool during_call);

/// Runs `call` (a reduction on a context) and maps what it throws. `ok` false: this rank's
/// buffers were unusable, the call still took part, and `what_is_wrong` is this rank's error
/// (MPI_ERR_BUFFER).
template <class Call>
int run_call(bool ok, const char* what_is_wrong, Call&& call)
{
    try {
        call();
    } catch (...) {
        if (!ok) {
            return fail(MPI_ERR_BUFFER, what_is_wrong);
        }
        return fail_current_exception(true);
    }
    return ok ? succeed() : fail(MPI_ERR_BUFFER, what_is_wrong);
}

} // namespace treefold::capi::detail
