// The MPI_Reduce-signature entry points of reduce.h, the private communicators they and
// tree_reduce.hpp talk on, and the last-call counters.
//
// Raw MPI here: derived datatypes, MPI_Op and MPI_Reduce_local have no Boost.MPI form.

#include "treefold/collective/reduce.h"
#include "treefold/collective/tree_reduce.hpp"
#include "treefold/collective/tree_shape.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

namespace treefold::collective {

namespace {

thread_local detail::call_record last_counters;

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

/// Scratch space for whole messages, kept per thread between calls: fresh large blocks cost
/// page faults and zero-filling on every call (glibc maps blocks of 128 KiB and more anew).
thread_local std::vector<std::vector<unsigned char>> scratch_pool;

/// How a datatype lays out `count` elements.
struct type_layout {
    int count = 0;
    MPI_Aint extent = 0;
    MPI_Aint true_lb = 0;
    MPI_Aint true_extent = 0;
    int size = 0;

    std::size_t span_bytes() const { return static_cast<std::size_t>(true_extent + (count - 1) * extent); }
    /// No holes: the data is the bytes [true_lb, true_lb + count * extent).
    bool contiguous() const { return size == extent && true_extent == extent; }
};

/// Scratch slot `slot` sized for the layout, addressed as MPI expects (buffer - true_lb).
/// reserve_slots() must have been called with a larger count first.
void* scratch(std::size_t slot, const type_layout& t)
{
    auto& bytes = scratch_pool[slot];
    const std::size_t want = std::max<std::size_t>(1, t.span_bytes());
    if (bytes.size() < want) {
        bytes.resize(want);
    }
    return bytes.data() - t.true_lb;
}

void reserve_slots(std::size_t slots)
{
    if (scratch_pool.size() < slots) {
        scratch_pool.resize(slots);
    }
}

/// Copies `count` elements from `from` to `to` (same datatype): memcpy when the type has no
/// holes, else a message to self on the private communicator.
int copy_elements(const void* from, void* to, MPI_Datatype datatype, const type_layout& t, MPI_Comm pc, int me)
{
    if (t.contiguous()) {
        std::memcpy(static_cast<unsigned char*>(to) + t.true_lb, static_cast<const unsigned char*>(from) + t.true_lb,
                    static_cast<std::size_t>(t.count) * static_cast<std::size_t>(t.extent));
        return MPI_SUCCESS;
    }
    return MPI_Sendrecv(from, t.count, datatype, me, tag_copy, to, t.count, datatype, me, tag_copy, pc,
                        MPI_STATUS_IGNORE);
}

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

/// Binomial broadcast of `count` elements in `buffer` (or of a failure marker) from `from`.
/// A rank that failed locally receives into scratch slot `spare` and passes a failure on.
int broadcast_from(int from, void* buffer, MPI_Datatype datatype, const type_layout& t, MPI_Comm pc, int p, int me,
                   std::size_t spare, bool& failed, long long message_bytes)
{
    const int rel = (me - from + p) % p;
    void* into = failed ? scratch(spare, t) : buffer;
    int mask = 1;
    while (mask < p) {
        if ((rel & mask) != 0) {
            MPI_Status status;
            const int rc = MPI_Recv(into, t.count, datatype, (rel - mask + from) % p, MPI_ANY_TAG, pc, &status);
            if (rc != MPI_SUCCESS) {
                return rc;
            }
            failed = failed || status.MPI_TAG == tag_fail;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask < p) {
            const int dest = (rel + mask + from) % p;
            const int rc = failed ? MPI_Send(nullptr, 0, datatype, dest, tag_fail, pc)
                                  : MPI_Send(buffer, t.count, datatype, dest, tag_data, pc);
            if (rc != MPI_SUCCESS) {
                return rc;
            }
            last_counters.messages += 1;
            last_counters.bytes += failed ? 0 : message_bytes;
        }
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
///
/// With `all` (allreduce) the root is the shape's root, every rank may pass MPI_IN_PLACE and
/// needs a recvbuf, and the result (or a failure) then goes to every rank along a binomial
/// broadcast, so every rank returns the same error class.
int reduce_along(const shape_ops& shape, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm, bool all)
{
    last_counters = {};
    int p = 0;
    int me = 0;
    int rc = check_global(count, datatype, op, all ? 0 : root, comm, &p, &me);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (all) {
        root = shape.root(p);
    }
    const bool in_place = sendbuf == MPI_IN_PLACE;
    bool failed = (in_place && me != root && !all) || (count > 0 && sendbuf == nullptr) ||
                  (count > 0 && (me == root || all) && recvbuf == nullptr);
    if (count == 0) {
        return failed ? MPI_ERR_BUFFER : MPI_SUCCESS;
    }
    MPI_Comm pc = MPI_COMM_NULL;
    rc = detail::private_comm(comm, &pc);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    type_layout t;
    t.count = count;
    MPI_Aint lb = 0;
    if ((rc = MPI_Type_get_extent(datatype, &lb, &t.extent)) != MPI_SUCCESS ||
        (rc = MPI_Type_get_true_extent(datatype, &t.true_lb, &t.true_extent)) != MPI_SUCCESS ||
        (rc = MPI_Type_size(datatype, &t.size)) != MPI_SUCCESS) {
        return rc;
    }
    const long long message_bytes = static_cast<long long>(t.size) * count;

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
    // Scratch slots: child k uses slot k, the own copy slot children.size(), a discarded
    // result slot children.size() + 1.
    const std::size_t own_slot = children.size();
    reserve_slots(children.size() + 2);
    std::vector<void*> piece_buffer(pieces.size(), nullptr);
    const bool own_written = pieces.size() > 1 && (shape.fold_from_right ? own_at == last : own_at != 0);
    for (std::size_t k = 0; k < pieces.size(); ++k) {
        const bool final_slot = delivers && k == last && !failed;
        if (pieces[k] >= 0) {
            piece_buffer[k] = final_slot && !in_place ? recvbuf : scratch(static_cast<std::size_t>(pieces[k]), t);
        } else if (failed) {
            piece_buffer[k] = nullptr; // never used
        } else if (own_written) {
            // On the delivering root the own value is built in recvbuf (in place: already there).
            piece_buffer[k] = final_slot || (delivers && in_place) ? recvbuf : scratch(own_slot, t);
        } else {
            piece_buffer[k] = const_cast<void*>(own); // only ever read
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
        rc = copy_elements(own, piece_buffer[own_at], datatype, t, pc, me);
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
        rc = copy_elements(acc, recvbuf, datatype, t, pc, me);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (me == root && me != top) {
        // After this rank's own part: with MPI_IN_PLACE its input was in recvbuf.
        void* into = failed ? scratch(own_slot + 1, t) : recvbuf;
        MPI_Status status;
        rc = MPI_Recv(into, count, datatype, top, MPI_ANY_TAG, pc, &status);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        failed = failed || status.MPI_TAG == tag_fail;
    }
    int extra = top != root ? 1 : 0;
    if (all) {
        rc = broadcast_from(top, recvbuf, datatype, t, pc, p, me, own_slot + 1, failed, message_bytes);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        extra = detail::broadcast_rounds(p);
    }
    last_counters.total_messages = static_cast<std::uint64_t>(all ? 2 * (p - 1) : p - 1 + extra);
    last_counters.rounds = shape.rounds;
    last_counters.depth = shape.height;
    last_counters.p = p;
    last_counters.extra_rounds = extra;
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
    return reduce_along(shape, sendbuf, recvbuf, count, datatype, op, root, comm, false);
}

int treefold_reduce_fibonacci(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              int root, MPI_Comm comm)
{
    using namespace treefold::collective;
    static constexpr shape_ops shape = ops_of<fibonacci>();
    return reduce_along(shape, sendbuf, recvbuf, count, datatype, op, root, comm, false);
}

int treefold_reduce_binary(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           int root, MPI_Comm comm)
{
    using namespace treefold::collective;
    static constexpr shape_ops shape = ops_of<binary>();
    return reduce_along(shape, sendbuf, recvbuf, count, datatype, op, root, comm, false);
}

int treefold_reduce_inorder(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            int root, MPI_Comm comm)
{
    using namespace treefold::collective;
    static constexpr shape_ops shape = ops_of<inorder>();
    return reduce_along(shape, sendbuf, recvbuf, count, datatype, op, root, comm, false);
}

int treefold_allreduce_binomial(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm)
{
    using namespace treefold::collective;
    static constexpr shape_ops shape = ops_of<binomial>();
    return reduce_along(shape, sendbuf, recvbuf, count, datatype, op, 0, comm, true);
}

int treefold_allreduce_fibonacci(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm)
{
    using namespace treefold::collective;
    static constexpr shape_ops shape = ops_of<fibonacci>();
    return reduce_along(shape, sendbuf, recvbuf, count, datatype, op, 0, comm, true);
}

int treefold_allreduce_binary(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm)
{
    using namespace treefold::collective;
    static constexpr shape_ops shape = ops_of<binary>();
    return reduce_along(shape, sendbuf, recvbuf, count, datatype, op, 0, comm, true);
}

int treefold_allreduce_inorder(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm)
{
    using namespace treefold::collective;
    static constexpr shape_ops shape = ops_of<inorder>();
    return reduce_along(shape, sendbuf, recvbuf, count, datatype, op, 0, comm, true);
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
