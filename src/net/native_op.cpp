#include "treefold/net/transport.hpp"

#include <boost/mpi/exception.hpp>

#include <climits>
#include <stdexcept>

namespace treefold::net {

namespace {

/// One attribute key for every bound datatype of the process (created on first use).
int state_key()
{
    static const int key = [] {
        int k = MPI_KEYVAL_INVALID;
        check_mpi("MPI_Type_create_keyval", MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &k,
                                                                   nullptr));
        return k;
    }();
    return key;
}

bool finalized()
{
    int done = 0;
    MPI_Finalized(&done);
    return done != 0;
}

} // namespace

void check_mpi(const char* routine, int rc)
{
    if (rc != MPI_SUCCESS) {
        throw boost::mpi::exception(routine, rc);
    }
}

bound_datatype::bound_datatype(std::size_t bytes, void* state)
{
    if (bytes > static_cast<std::size_t>(INT_MAX)) {
        throw std::length_error("treefold: a frontier record exceeds one MPI count");
    }
    check_mpi("MPI_Type_contiguous", MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type_));
    check_mpi("MPI_Type_commit", MPI_Type_commit(&type_));
    check_mpi("MPI_Type_set_attr", MPI_Type_set_attr(type_, state_key(), state));
}

bound_datatype::~bound_datatype()
{
    if (type_ != MPI_DATATYPE_NULL && !finalized()) {
        MPI_Type_free(&type_);
    }
}

void* bound_datatype::state_of(MPI_Datatype type)
{
    void* state = nullptr;
    int found = 0;
    if (MPI_Type_get_attr(type, state_key(), &state, &found) != MPI_SUCCESS || found == 0) {
        return nullptr;
    }
    return state;
}

user_op::user_op(MPI_User_function* f, bool commutative)
{
    check_mpi("MPI_Op_create", MPI_Op_create(f, commutative ? 1 : 0, &op_));
}

user_op::~user_op()
{
    if (op_ != MPI_OP_NULL && !finalized()) {
        MPI_Op_free(&op_);
    }
}

void reduce_one(const void* send, void* recv, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request)
{
    if (request != nullptr) {
        check_mpi("MPI_Iallreduce", MPI_Iallreduce(send, recv, 1, type, op, comm, request));
    } else {
        check_mpi("MPI_Allreduce", MPI_Allreduce(send, recv, 1, type, op, comm));
    }
}

bool test_request(MPI_Request& request)
{
    int done = 0;
    check_mpi("MPI_Test", MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    return done != 0;
}

void wait_request(MPI_Request& request)
{
    check_mpi("MPI_Wait", MPI_Wait(&request, MPI_STATUS_IGNORE));
}

} // namespace treefold::net
