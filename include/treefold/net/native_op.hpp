#pragma once
/// The handles that let the MPI library's own reductions run treefold's merge: a datatype of
/// one record that carries the call's state as an attribute, and a user-defined
/// operation (non-commutative; commutative for order-free operators). Raw MPI: Boost.MPI cannot attach state to an operation (its
/// user-defined operations lose functor state, which treefold must not). MPI passes the
/// reduction's datatype handle to the operation, so the operation finds its state there.

#include "treefold/config.hpp"

#include <mpi.h>

#include <cstddef>

namespace treefold::net {

/// Throws boost::mpi::exception naming `routine` unless rc is MPI_SUCCESS.
void check_mpi(const char* routine, int rc);

/// A committed datatype of `bytes` contiguous bytes carrying `state` (freed on destruction;
/// not copyable or movable, since MPI holds its address).
class bound_datatype {
public:
    bound_datatype(std::size_t bytes, void* state);
    ~bound_datatype();
    bound_datatype(const bound_datatype&) = delete;
    bound_datatype& operator=(const bound_datatype&) = delete;

    MPI_Datatype get() const { return type_; }
    /// The state attached to `type` (nullptr if it has none).
    static void* state_of(MPI_Datatype type);

private:
    MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

/// A user-defined operation, non-commutative unless `commutative` (freed on destruction).
class user_op {
public:
    explicit user_op(MPI_User_function* f, bool commutative = false);
    ~user_op();
    user_op(const user_op&) = delete;
    user_op& operator=(const user_op&) = delete;

    MPI_Op get() const { return op_; }

private:
    MPI_Op op_ = MPI_OP_NULL;
};

/// One element of `type` from every rank of `comm` combined under `op` on every rank:
/// MPI_Allreduce, or MPI_Iallreduce when `request` is given (complete it with test_request
/// or wait_request). Throws boost::mpi::exception.
void reduce_one(const void* send, void* recv, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                MPI_Request* request = nullptr);
/// True when `request` has completed (it is then MPI_REQUEST_NULL).
bool test_request(MPI_Request& request);
/// Waits for `request`.
void wait_request(MPI_Request& request);

} // namespace treefold::net
