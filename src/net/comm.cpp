// The private communicators of net/comm.hpp: one duplicate per user communicator, cached as
// an attribute (raw MPI: Boost.MPI has no attribute caching).
#include "treefold/net/comm.hpp"

namespace treefold::net {

namespace {

int free_private_comm(MPI_Comm /*comm*/, int /*keyval*/, void* attribute, void* /*extra*/)
{
    auto* dup = static_cast<MPI_Comm*>(attribute);
    const int rc = MPI_Comm_free(dup);
    delete dup;
    return rc;
}

} // namespace

int private_comm(MPI_Comm comm, MPI_Comm* out)
{
    // Created once (thread-safe static initialisation). Duplicates of the user's
    // communicator do not inherit the attribute: they get their own private copy.
    static const int private_keyval = [] {
        int key = MPI_KEYVAL_INVALID;
        if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_private_comm, &key, nullptr) != MPI_SUCCESS) {
            key = MPI_KEYVAL_INVALID;
        }
        return key;
    }();
    if (private_keyval == MPI_KEYVAL_INVALID) {
        return MPI_ERR_KEYVAL;
    }
    void* attribute = nullptr;
    int found = 0;
    int rc = MPI_Comm_get_attr(comm, private_keyval, &attribute, &found);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (found != 0) {
        *out = *static_cast<MPI_Comm*>(attribute);
        return MPI_SUCCESS;
    }
    auto* dup = new MPI_Comm(MPI_COMM_NULL);
    rc = MPI_Comm_dup(comm, dup);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_set_errhandler(*dup, MPI_ERRORS_RETURN);
    }
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_set_attr(comm, private_keyval, dup);
    }
    if (rc != MPI_SUCCESS) {
        if (*dup != MPI_COMM_NULL) {
            MPI_Comm_free(dup);
        }
        delete dup;
        return rc;
    }
    *out = *dup;
    return MPI_SUCCESS;
}

} // namespace treefold::net
