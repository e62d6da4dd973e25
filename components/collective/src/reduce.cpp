// The MPI_Reduce-signature entry points of reduce.h and the last-call counters. The tree
// walk, broadcast, delivery, transport and failure framing are net/'s; this file plans the
// buffers and combines with MPI_Reduce_local (raw MPI: MPI_Op has no Boost.MPI form).

// This file defines the deprecated old names too, so it declares them.
#define TREEFOLD_OLD_RANK_ORDERED_NAMES
#include "treefold/collective/reduce.h"
#include "treefold/collective/tree_reduce.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/collective/detail/datatype_channel.hpp"
#include "treefold/collective/detail/walk.hpp"
#include "treefold/topology/tree_shape.hpp"

#include <boost/mpi/exception.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace treefold::collective {

namespace {

thread_local detail::call_record last_counters;

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

} // namespace detail

namespace {

using detail::check;

/// The shape as plain functions, so one non-template body serves every shape.
struct shape_ops {
    bool fold_from_right;
    int (*root)(int);
    int (*parent)(int, int);
    std::vector<topology::tree_child> (*children)(int, int);
    int (*height)(int);
    int (*rounds)(int);
};

template <class Shape>
constexpr shape_ops ops_of()
{
    return {Shape::fold_from_right, &Shape::root, &Shape::parent, &Shape::children, &Shape::height,
            &topology::one_port_rounds<Shape>};
}

/// Scratch space for whole messages, kept per thread between calls: fresh large blocks cost
/// page faults and zero-filling on every call (glibc maps blocks of 128 KiB and more anew).
thread_local std::vector<std::vector<unsigned char>> scratch_pool;

/// Scratch slot `slot` sized for the layout, addressed as MPI expects (buffer - true_lb).
/// Growing the pool moves the slots, not their blocks: earlier addresses stay valid.
void* scratch(std::size_t slot, const detail::datatype_layout& t)
{
    if (scratch_pool.size() <= slot) {
        scratch_pool.resize(slot + 1);
    }
    auto& bytes = scratch_pool[slot];
    const std::size_t want = std::max<std::size_t>(1, t.span_bytes());
    if (bytes.size() < want) {
        bytes.resize(want);
    }
    return bytes.data() - t.true_lb;
}

/// Checks everything every rank sees the same way (MPI requires equal root, count, type
/// and op on all ranks). MPI_SUCCESS or an error class; no communication.
int check_global(int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, int* p, int* me)
{
    if (net::unusable_communicator(comm) != nullptr) {
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

/// reduce_along (below) after its checks; MPI errors are thrown as detail::mpi_error.
int walk(const shape_ops& shape, const void* sendbuf, void* recvbuf, MPI_Datatype datatype, MPI_Op op, int root,
         MPI_Comm pc, int p, int me, bool all, bool bad, int count)
{
    const detail::datatype_layout t = detail::datatype_layout::of(datatype, count);
    net::counters sent;
    detail::datatype_channel ch{pc, datatype, t, sent};
    maybe_failure failed;
    if (bad) {
        failed = failure{failure::code::bad_buffer, me, 0, 0, {}, {}};
    }
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const int top = shape.root(p);
    const int parent = shape.parent(me, p);
    const std::vector<topology::tree_child> children = shape.children(me, p);
    const bool delivers = me == top && me == root; // the tree's result is the caller's

    // Pieces in position order: the own input sits at own_at, child c at c or c + 1.
    std::size_t own_at = 0;
    while (own_at < children.size() && children[own_at].subtree_end <= me) {
        ++own_at;
    }
    const std::size_t last = children.size();
    auto child_at = [&](std::size_t c) { return c < own_at ? c : c + 1; };
    const void* own = in_place ? recvbuf : sendbuf;

    // Buffers: the last piece's buffer is recvbuf on the delivering root unless the own
    // input lives there (MPI_IN_PLACE) and would be overwritten before it is read.
    // Scratch slots: child c uses slot c, the own copy slot children.size(), a discarded
    // result slot children.size() + 1.
    const std::size_t own_slot = children.size();
    const bool own_written = !children.empty() && (shape.fold_from_right ? own_at == last : own_at != 0);
    std::vector<void*> child_buffer(children.size());
    for (std::size_t c = 0; c < children.size(); ++c) {
        const bool final_slot = delivers && child_at(c) == last && !failed;
        child_buffer[c] = final_slot && !in_place ? recvbuf : scratch(c, t);
    }
    void* own_buffer = nullptr; // never used after a local failure
    if (!failed) {
        if (own_written) {
            // On the delivering root the own value is built in recvbuf (in place: already there).
            const bool final_slot = delivers && own_at == last;
            own_buffer = final_slot || (delivers && in_place) ? recvbuf : scratch(own_slot, t);
        } else {
            own_buffer = const_cast<void*>(own); // only ever read
        }
    }

    std::vector<MPI_Request> requests(children.size(), MPI_REQUEST_NULL);
    for (std::size_t c = 0; c < children.size(); ++c) {
        requests[c] = ch.post_recv(children[c].position, child_buffer[c]);
    }
    if (!failed && own_written && own_buffer != own) {
        ch.copy(own, own_buffer);
    }

    // Fold. `acc` is the buffer holding the value of the pieces folded so far.
    void* acc = nullptr;
    auto take = [&](std::size_t c) { return ch.finish(requests[c], children[c].position); };
    auto combine = [&](int piece, maybe_failure& /*failed*/) {
        void* buffer = piece < 0 ? own_buffer : child_buffer[static_cast<std::size_t>(piece)];
        if (acc == nullptr) {
            acc = buffer;
        } else if (shape.fold_from_right) {
            check(MPI_Reduce_local(buffer, acc, count, datatype, op)); // piece op acc
        } else {
            check(MPI_Reduce_local(acc, buffer, count, datatype, op)); // acc op piece
            acc = buffer;
        }
    };
    detail::walk_subtree(children, me, shape.fold_from_right, failed, take, combine);

    ch.buffer = acc;
    if (parent >= 0) { // acc is this subtree's value
        ch.send(parent, failed);
    } else if (me == root && !failed && acc != recvbuf) {
        ch.copy(acc, recvbuf);
    }
    // The result reaches the caller's root (reduce) or every rank (allreduce): the tree's
    // root sends it from recvbuf once it is its own result, else from acc; the others receive
    // into recvbuf, or into scratch after a local failure. With MPI_IN_PLACE the root's input
    // was in recvbuf, which it has finished reading by now.
    if (me == top) {
        ch.buffer = me == root ? recvbuf : acc;
    } else {
        ch.buffer = failed ? scratch(own_slot + 1, t) : recvbuf;
    }
    int extra = top != root ? 1 : 0;
    if (all) {
        net::broadcast(ch, p, me, top, failed);
        extra = detail::broadcast_rounds(p);
    } else {
        net::deliver(ch, me, top, root, failed);
    }
    last_counters = {sent.messages, sent.bytes, static_cast<std::uint64_t>(all ? 2 * (p - 1) : p - 1 + extra),
                     shape.rounds, shape.height, p, extra};
    return failed ? MPI_ERR_BUFFER : MPI_SUCCESS;
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
    rc = net::private_comm(comm, &pc);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    try {
        return walk(shape, sendbuf, recvbuf, datatype, op, root, pc, p, me, all, failed, count);
    } catch (const detail::mpi_error& e) {
        return e.rc;
    } catch (const boost::mpi::exception& e) {
        return e.result_code();
    }
}

} // namespace
} // namespace treefold::collective

extern "C" {

// One rooted and one all-ranks entry point per shape.
#define TREEFOLD_C_ENTRIES(SHAPE)                                                                              \
    int treefold_rank_ordered_reduce_##SHAPE(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, \
                                             MPI_Op op, int root, MPI_Comm comm)                               \
    {                                                                                                          \
        static constexpr treefold::collective::shape_ops shape =                                               \
            treefold::collective::ops_of<treefold::topology::SHAPE>();                                         \
        return treefold::collective::reduce_along(shape, sendbuf, recvbuf, count, datatype, op, root, comm,    \
                                                  false);                                                      \
    }                                                                                                          \
    int treefold_rank_ordered_allreduce_##SHAPE(const void* sendbuf, void* recvbuf, int count,                 \
                                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)               \
    {                                                                                                          \
        static constexpr treefold::collective::shape_ops shape =                                               \
            treefold::collective::ops_of<treefold::topology::SHAPE>();                                         \
        return treefold::collective::reduce_along(shape, sendbuf, recvbuf, count, datatype, op, 0, comm, true); \
    }                                                                                                          \
    int treefold_reduce_##SHAPE(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, \
                                int root, MPI_Comm comm)                                                       \
    {                                                                                                          \
        return treefold_rank_ordered_reduce_##SHAPE(sendbuf, recvbuf, count, datatype, op, root, comm);        \
    }                                                                                                          \
    int treefold_allreduce_##SHAPE(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,       \
                                   MPI_Op op, MPI_Comm comm)                                                   \
    {                                                                                                          \
        return treefold_rank_ordered_allreduce_##SHAPE(sendbuf, recvbuf, count, datatype, op, comm);           \
    }

TREEFOLD_C_ENTRIES(binomial)
TREEFOLD_C_ENTRIES(fibonacci)
TREEFOLD_C_ENTRIES(binary)
TREEFOLD_C_ENTRIES(inorder)
TREEFOLD_C_ENTRIES(truncated_fibonacci)
TREEFOLD_C_ENTRIES(truncated_binary)
#undef TREEFOLD_C_ENTRIES

void treefold_rank_ordered_last_counters(treefold_rank_ordered_counters* out)
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

void treefold_reduce_last_counters(treefold_rank_ordered_counters* out) { treefold_rank_ordered_last_counters(out); }

} // extern "C"
