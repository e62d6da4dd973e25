// The MPI_Reduce-signature entry points of reduce.h, the private communicators they and
// tree_reduce.hpp talk on, and the last-call counters.
//
// Raw MPI here: derived datatypes, MPI_Op and MPI_Reduce_local have no Boost.MPI form.

#include "treefold/collective/reduce.h"
#include "treefold/collective/tree_reduce.hpp"
#include "treefold/collective/tree_shape.hpp"

#include <cstddef>
#include <vector>

namespace treefold::collective {

namespace {

thread_local detail::call_record last_counters;

int private_keyval = MPI_KEYVAL_INVALID;

int free_private_comm(MPI_Comm /*comm*/, int /*keyval*/, void* attribute, void* /*extra*/)
{
    auto* dup = static_cast<MPI_Comm*>(attribute);
    const int rc = MPI_Comm_free(dup);
    delete dup;
    return rc;
}

} // namespace

reduce_counters last_reduce_counters()
{
    const detail::call_record& r = last_counters;
    reduce_counters c;
    c.messages = r.messages;
    c.bytes = r.bytes;
    c.total_messages = r.total_messages;
    if (r.rounds != nullptr && r.p > 0) {
        c.rounds = r.rounds(r.p) + r.extra_rounds;
        c.depth = r.depth(r.p) + r.extra_rounds;
    }
    return c;
}

namespace detail {

call_record& counters_slot() { return last_counters; }

int private_comm(MPI_Comm comm, MPI_Comm* out)
{
    if (private_keyval == MPI_KEYVAL_INVALID) {
        // Duplicates of the user's communicator do not inherit ours: they get their own.
        const int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_private_comm, &private_keyval, nullptr);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
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

} // namespace detail

namespace {

constexpr int tag_data = 11;   // a subtree's value, to the parent
constexpr int tag_fail = 12;   // instead of tag_data or tag_result: no value (empty message)
constexpr int tag_result = 13; // the reduction, from the tree's root to the caller's root
constexpr int tag_copy = 14;   // a rank copying a buffer to itself

/// The shape as plain functions, so one non-template body serves every shape.
struct shape_ops {
    bool fold_from_right;
    int (*root)(int);
    int (*parent)(int, int);
    std::vector<tree_child> (*children)(int, int);
    int (*height)(int);
    int (*rounds)(int);
};

template <class Shape>
constexpr shape_ops ops_of()
{
    return {Shape::fold_from_right, &Shape::root, &Shape::parent, &Shape::children, &Shape::height,
            &one_port_rounds<Shape>};
}

/// A scratch buffer for `count` elements of a datatype (laid out by extent, sized by the
/// true extent), addressed as MPI expects.
class type_buffer {
public:
    type_buffer() = default;
    type_buffer(int count, MPI_Aint extent, MPI_Aint true_lb, MPI_Aint true_extent)
        : bytes_(static_cast<std::size_t>(true_extent + (count - 1) * extent)), true_lb_(true_lb)
    {
    }
    void* get()
    {
        if (storage_.empty()) {
            storage_.resize(bytes_ == 0 ? 1 : bytes_);
        }
        return storage_.data() - true_lb_;
    }

private:
    std::size_t bytes_ = 0;
    MPI_Aint true_lb_ = 0;
    std::vector<unsigned char> storage_;
};

/// Checks everything every rank sees the same way (MPI requires equal root, count, type
/// and op on all ranks). MPI_SUCCESS or an error class; no communication.
int check_global(int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, int* p, int* me)
{
    if (comm == MPI_COMM_NULL) {
        return MPI_ERR_COMM;
    }
    int inter = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter != 0) {
        return MPI_ERR_COMM;
    }
    if (count < 0) {
        return MPI_ERR_COUNT;
    }
    if (datatype == MPI_DATATYPE_NULL) {
        return MPI_ERR_TYPE;
    }
    if (op == MPI_OP_NULL) {
        return MPI_ERR_OP;
    }
    MPI_Comm_size(comm, p);
    MPI_Comm_rank(comm, me);
    if (root < 0 || root >= *p) {
        return MPI_ERR_ROOT;
    }
    return MPI_SUCCESS;
}

/// The reduction along `shape` (see reduce.h for the contract).
///
/// Every position pre-posts a receive per child, then folds its pieces (children before
/// it, its own input, children after it) in position order, from the left or from the
/// right as the shape prefers. MPI_Reduce_local(a, b) leaves a op b in b, so the
/// right operand's buffer is always the one written: folding from the left the result
/// moves into each next piece's buffer, folding from the right it stays in the last
/// piece's buffer. Either way the result ends in the last piece's buffer, which on the
/// root is recvbuf whenever that is possible, and only an own input that must be written
/// is copied.
int reduce_along(const shape_ops& shape, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm)
{
    last_counters = {};
    int p = 0;
    int me = 0;
    int rc = check_global(count, datatype, op, root, comm, &p, &me);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    const bool in_place = sendbuf == MPI_IN_PLACE;
    bool failed = (in_place && me != root) || (count > 0 && sendbuf == nullptr) ||
                  (count > 0 && me == root && recvbuf == nullptr);
    if (count == 0) {
        return failed ? MPI_ERR_BUFFER : MPI_SUCCESS;
    }
    MPI_Comm pc = MPI_COMM_NULL;
    rc = detail::private_comm(comm, &pc);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    MPI_Aint lb = 0;
    MPI_Aint extent = 0;
    MPI_Aint true_lb = 0;
    MPI_Aint true_extent = 0;
    int type_size = 0;
    if ((rc = MPI_Type_get_extent(datatype, &lb, &extent)) != MPI_SUCCESS ||
        (rc = MPI_Type_get_true_extent(datatype, &true_lb, &true_extent)) != MPI_SUCCESS ||
        (rc = MPI_Type_size(datatype, &type_size)) != MPI_SUCCESS) {
        return rc;
    }
    const long long message_bytes = static_cast<long long>(type_size) * count;

    const int top = shape.root(p);
    const int parent = shape.parent(me, p);
    const std::vector<tree_child> children = shape.children(me, p);
    const bool delivers = me == top && me == root; // the tree's result is the caller's

    // Pieces in position order: child index, or -1 for the own input.
    std::vector<int> pieces;
    bool own_placed = false;
    for (std::size_t c = 0; c < children.size(); ++c) {
        if (!own_placed && children[c].subtree_begin > me) {
            pieces.push_back(-1);
            own_placed = true;
        }
        pieces.push_back(static_cast<int>(c));
    }
    if (!own_placed) {
        pieces.push_back(-1);
    }
    const std::size_t own_at = [&] {
        std::size_t i = 0;
        while (pieces[i] != -1) {
            ++i;
        }
        return i;
    }();
    const std::size_t last = pieces.size() - 1;
    const void* own = in_place ? recvbuf : sendbuf;

    // Buffers: the last piece's buffer is recvbuf on the delivering root unless the own
    // input lives there (MPI_IN_PLACE) and would be overwritten before it is read.
    std::vector<type_buffer> child_buffers(children.size());
    std::vector<void*> piece_buffer(pieces.size(), nullptr);
    const bool own_written = pieces.size() > 1 && (shape.fold_from_right ? own_at == last : own_at != 0);
    type_buffer own_copy;
    if (!failed) {
        for (std::size_t k = 0; k < pieces.size(); ++k) {
            const bool final_slot = delivers && k == last;
            if (pieces[k] >= 0) {
                if (final_slot && !in_place) {
                    piece_buffer[k] = recvbuf;
                } else {
                    auto& b = child_buffers[static_cast<std::size_t>(pieces[k])];
                    b = type_buffer(count, extent, true_lb, true_extent);
                    piece_buffer[k] = b.get();
                }
            } else if (own_written) {
                if (final_slot || (delivers && in_place)) {
                    piece_buffer[k] = recvbuf; // in place: already there
                } else {
                    own_copy = type_buffer(count, extent, true_lb, true_extent);
                    piece_buffer[k] = own_copy.get();
                }
            } else {
                piece_buffer[k] = const_cast<void*>(own); // only ever read
            }
        }
    } else {
        // Nothing will be combined: receive children into scratch just to let them finish.
        for (std::size_t k = 0; k < pieces.size(); ++k) {
            if (pieces[k] >= 0) {
                auto& b = child_buffers[static_cast<std::size_t>(pieces[k])];
                b = type_buffer(count, extent, true_lb, true_extent);
                piece_buffer[k] = b.get();
            }
        }
    }

    std::vector<MPI_Request> requests(pieces.size(), MPI_REQUEST_NULL);
    for (std::size_t k = 0; k < pieces.size(); ++k) {
        if (pieces[k] >= 0) {
            const int source = children[static_cast<std::size_t>(pieces[k])].position;
            rc = MPI_Irecv(piece_buffer[k], count, datatype, source, MPI_ANY_TAG, pc, &requests[k]);
            if (rc != MPI_SUCCESS) {
                return rc;
            }
        }
    }
    if (!failed && own_written && piece_buffer[own_at] != own) {
        rc = MPI_Sendrecv(own, count, datatype, me, tag_copy, piece_buffer[own_at], count, datatype, me, tag_copy,
                          pc, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }

    // Fold. `acc` is the buffer holding the value of the pieces folded so far.
    void* acc = nullptr;
    for (std::size_t step = 0; step < pieces.size(); ++step) {
        const std::size_t k = shape.fold_from_right ? last - step : step;
        if (pieces[k] >= 0) {
            MPI_Status status;
            rc = MPI_Wait(&requests[k], &status);
            if (rc != MPI_SUCCESS) {
                return rc;
            }
            failed = failed || status.MPI_TAG == tag_fail;
        }
        if (failed) {
            continue; // keep receiving so no child waits
        }
        if (acc == nullptr) {
            acc = piece_buffer[k];
        } else if (shape.fold_from_right) {
            rc = MPI_Reduce_local(piece_buffer[k], acc, count, datatype, op); // piece op acc
        } else {
            rc = MPI_Reduce_local(acc, piece_buffer[k], count, datatype, op); // acc op piece
            acc = piece_buffer[k];
        }
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }

    if (parent >= 0) {
        rc = failed ? MPI_Send(nullptr, 0, datatype, parent, tag_fail, pc)
                    : MPI_Send(acc, count, datatype, parent, tag_data, pc);
        last_counters.messages += 1;
        last_counters.bytes += failed ? 0 : message_bytes;
    } else if (me != root) {
        rc = failed ? MPI_Send(nullptr, 0, datatype, root, tag_fail, pc)
                    : MPI_Send(acc, count, datatype, root, tag_result, pc);
        last_counters.messages += 1;
        last_counters.bytes += failed ? 0 : message_bytes;
    } else if (!failed && acc != recvbuf) {
        rc = MPI_Sendrecv(acc, count, datatype, me, tag_copy, recvbuf, count, datatype, me, tag_copy, pc,
                          MPI_STATUS_IGNORE);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (me == root && me != top) {
        // After this rank's own part: with MPI_IN_PLACE its input was in recvbuf.
        type_buffer discard;
        void* into = recvbuf;
        if (failed) {
            discard = type_buffer(count, extent, true_lb, true_extent);
            into = discard.get();
        }
        MPI_Status status;
        rc = MPI_Recv(into, count, datatype, top, MPI_ANY_TAG, pc, &status);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        failed = failed || status.MPI_TAG == tag_fail;
    }
    const int forward = top != root ? 1 : 0;
    last_counters.total_messages = static_cast<std::uint64_t>(p - 1 + forward);
    last_counters.rounds = shape.rounds;
    last_counters.depth = shape.height;
    last_counters.p = p;
    last_counters.extra_rounds = forward;
    return failed ? MPI_ERR_BUFFER : MPI_SUCCESS;
}

} // namespace
} // namespace treefold::collective

extern "C" {

int treefold_reduce_binomial(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             int root, MPI_Comm comm)
{
    using namespace treefold::collective;
    static constexpr shape_ops shape = ops_of<binomial>();
    return reduce_along(shape, sendbuf, recvbuf, count, datatype, op, root, comm);
}

int treefold_reduce_fibonacci(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              int root, MPI_Comm comm)
{
    using namespace treefold::collective;
    static constexpr shape_ops shape = ops_of<fibonacci>();
    return reduce_along(shape, sendbuf, recvbuf, count, datatype, op, root, comm);
}

int treefold_reduce_binary(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           int root, MPI_Comm comm)
{
    using namespace treefold::collective;
    static constexpr shape_ops shape = ops_of<binary>();
    return reduce_along(shape, sendbuf, recvbuf, count, datatype, op, root, comm);
}

int treefold_reduce_inorder(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            int root, MPI_Comm comm)
{
    using namespace treefold::collective;
    static constexpr shape_ops shape = ops_of<inorder>();
    return reduce_along(shape, sendbuf, recvbuf, count, datatype, op, root, comm);
}

void treefold_reduce_last_counters(treefold_reduce_counters* out)
{
    if (out == nullptr) {
        return;
    }
    const auto& c = treefold::collective::last_reduce_counters();
    out->messages = static_cast<long long>(c.messages);
    out->bytes = static_cast<long long>(c.bytes);
    out->total_messages = static_cast<long long>(c.total_messages);
    out->rounds = c.rounds;
    out->depth = c.depth;
}

} // extern "C"
