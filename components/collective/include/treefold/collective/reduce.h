#ifndef TREEFOLD_COLLECTIVE_REDUCE_H
#define TREEFOLD_COLLECTIVE_REDUCE_H
/**
 * \file
 * Rank-ordered tree reductions with the MPI_Reduce and MPI_Allreduce signatures
 * (C-compatible): element-wise, like MPI's, each rank's `count` elements combined with the
 * other ranks' in rank order. Not the reproducible reduction of treefold/treefold.h
 * (treefold_allreduce, treefold_context_*), which reduces all N values of a distributed
 * array along the global index and gives the same bits for every p; these give the same
 * bits from call to call for one p and shape. Hence the distinct prefix
 * treefold_rank_ordered_ (the old names treefold_reduce_<shape>, treefold_allreduce_<shape>,
 * treefold_reduce_counters and treefold_reduce_last_counters remain, deprecated, but are
 * declared only when TREEFOLD_OLD_RANK_ORDERED_NAMES is defined before this header).
 *
 * Each treefold_rank_ordered_reduce_* function reduces `count` elements of `datatype` from every rank of `comm` with `op`
 * and leaves the result in `recvbuf` on `root`, exactly like MPI_Reduce, along a fixed
 * tree over the ranks (see treefold/topology/tree_shape.hpp). Operands are always
 * combined in rank order with MPI_Reduce_local, so user-created non-commutative ops give
 * r_0 op r_1 op ... op r_{p-1}. For a given p and shape the bracketing is fixed, so
 * floating-point results do not vary from call to call (they do vary with p and shape).
 *
 * - Any root, any count >= 0 (count 0 moves no data), any datatype including derived ones
 *   (buffers are laid out by the type's extent; scratch space by its true extent), any
 *   MPI_Op. MPI_IN_PLACE as sendbuf on the root takes the root's input from recvbuf.
 * - The messages travel on a private duplicate of `comm`, made on the first call with that
 *   communicator (a collective MPI_Comm_dup) and freed with it, so they never match the
 *   caller's own point-to-point traffic.
 *
 * Errors (returned as MPI error classes, never through the communicator's error handler):
 * - Detected on every rank, before any communication, when all ranks pass the same
 *   arguments as MPI requires: MPI_ERR_COMM (MPI_COMM_NULL or an intercommunicator),
 *   MPI_ERR_COUNT (count < 0), MPI_ERR_ROOT (root outside [0, p)), MPI_ERR_TYPE
 *   (MPI_DATATYPE_NULL; whether a type is committed is not checked), MPI_ERR_OP
 *   (MPI_OP_NULL). Every rank returns at once; nobody waits.
 * - With count == 0 nothing is sent at all: every rank returns MPI_SUCCESS (or its own
 *   MPI_ERR_BUFFER for MPI_IN_PLACE off the root) at once.
 * - Detected on one rank only: MPI_ERR_BUFFER (sendbuf NULL with count > 0, recvbuf NULL
 *   on the root with count > 0, MPI_IN_PLACE on a rank other than the root). That rank
 *   still takes part: it sends a failure marker instead of data, the marker travels up
 *   the tree to the root, and the root, the failing rank and every rank on the path
 *   between them return MPI_ERR_BUFFER; the others return MPI_SUCCESS. No rank is left
 *   waiting.
 * - An error code returned by an MPI call inside is passed on; peers may then wait.
 *
 * Scratch buffers are kept per thread between calls (up to (children + 2) messages of the
 * largest size used), so repeated large reductions do not allocate.
 */

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Binomial tree rooted at rank 0 (children of r at r + 2^k below r's lowest set bit). */
int treefold_rank_ordered_reduce_binomial(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, int root, MPI_Comm comm);

/** Fibonacci tree rooted at rank 0 (degree 2, subtrees of Fibonacci sizes, pre-order). */
int treefold_rank_ordered_reduce_fibonacci(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, int root, MPI_Comm comm);

/** Complete binary tree rooted at rank 0 (heap-shaped, pre-order). */
int treefold_rank_ordered_reduce_binary(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, int root, MPI_Comm comm);

/** Binary tree rooted at rank p - 1, each subtree's root last (post-order). */
int treefold_rank_ordered_reduce_inorder(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, int root, MPI_Comm comm);

/**
 * The reduction-trees document's Fibonacci tree: the complete Fibonacci tree of the next
 * size up, cut at p (topology::truncated_fibonacci).
 */
int treefold_rank_ordered_reduce_truncated_fibonacci(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                        MPI_Op op, int root, MPI_Comm comm);
/**
 * The reduction-trees document's binary tree: the complete binary tree of the next size up,
 * cut at p (topology::truncated_binary).
 */
int treefold_rank_ordered_reduce_truncated_binary(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                     MPI_Op op, int root, MPI_Comm comm);

/**
 * Allreduce with the MPI_Allreduce signature: the reduction along the shape (here the
 * binomial tree) to its root, then a binomial broadcast, so every rank gets the same bits.
 * MPI_IN_PLACE is allowed on every rank. The errors are those above without MPI_ERR_ROOT; a
 * buffer error (NULL sendbuf or recvbuf with count > 0) on any rank makes every rank return
 * MPI_ERR_BUFFER, because the failure marker is broadcast in place of the result. Collective.
 */
int treefold_rank_ordered_allreduce_binomial(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm);
/** As treefold_rank_ordered_allreduce_binomial, reducing along the Fibonacci tree. */
int treefold_rank_ordered_allreduce_fibonacci(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                 MPI_Comm comm);
/** As treefold_rank_ordered_allreduce_binomial, reducing along the complete binary tree. */
int treefold_rank_ordered_allreduce_binary(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm);
/** As treefold_rank_ordered_allreduce_binomial, reducing along the post-order binary tree. */
int treefold_rank_ordered_allreduce_inorder(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm);
/** As treefold_rank_ordered_allreduce_binomial, reducing along the truncated Fibonacci tree. */
int treefold_rank_ordered_allreduce_truncated_fibonacci(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                           MPI_Op op, MPI_Comm comm);
/** As treefold_rank_ordered_allreduce_binomial, reducing along the truncated binary tree. */
int treefold_rank_ordered_allreduce_truncated_binary(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                        MPI_Op op, MPI_Comm comm);

/** What this rank did in the last treefold_rank_ordered_* call on this thread. */
typedef struct treefold_rank_ordered_counters {
    long long messages;       /**< messages this rank sent */
    long long bytes;          /**< payload bytes this rank sent (type size x count per message) */
    long long total_messages; /**< messages of the whole call, over all ranks */
    int rounds; /**< schedule length if each rank receives one message per round (one-port) */
    int depth;  /**< messages on the longest dependency chain ending at the root */
} treefold_rank_ordered_counters;

/**
 * Copies the counters of the last treefold_rank_ordered_* call on this thread into *out
 * (zeros before any call; a NULL out is ignored). Local.
 */
void treefold_rank_ordered_last_counters(treefold_rank_ordered_counters* out);

/*
 * The names before treefold_rank_ordered_ (deprecated: they read like treefold.h's
 * reproducible reductions of all N values, but are element-wise and rank-ordered). Each is the
 * function of the new name. Declared only on request: define TREEFOLD_OLD_RANK_ORDERED_NAMES
 * before including this header (the library still exports them, so old binaries link).
 */
#ifdef TREEFOLD_OLD_RANK_ORDERED_NAMES
#if defined(__GNUC__) || defined(__clang__)
#define TREEFOLD_RANK_ORDERED_OLD_NAME __attribute__((deprecated("use the treefold_rank_ordered_ name")))
#else
#define TREEFOLD_RANK_ORDERED_OLD_NAME
#endif
#define TREEFOLD_RANK_ORDERED_OLD_NAMES(SHAPE)                                                                    \
    TREEFOLD_RANK_ORDERED_OLD_NAME int treefold_reduce_##SHAPE(const void* sendbuf, void* recvbuf, int count,     \
                                                               MPI_Datatype datatype, MPI_Op op, int root,      \
                                                               MPI_Comm comm);                                  \
    TREEFOLD_RANK_ORDERED_OLD_NAME int treefold_allreduce_##SHAPE(const void* sendbuf, void* recvbuf, int count,  \
                                                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
TREEFOLD_RANK_ORDERED_OLD_NAMES(binomial)
TREEFOLD_RANK_ORDERED_OLD_NAMES(fibonacci)
TREEFOLD_RANK_ORDERED_OLD_NAMES(binary)
TREEFOLD_RANK_ORDERED_OLD_NAMES(inorder)
TREEFOLD_RANK_ORDERED_OLD_NAMES(truncated_fibonacci)
TREEFOLD_RANK_ORDERED_OLD_NAMES(truncated_binary)
#undef TREEFOLD_RANK_ORDERED_OLD_NAMES
typedef treefold_rank_ordered_counters treefold_reduce_counters;
TREEFOLD_RANK_ORDERED_OLD_NAME void treefold_reduce_last_counters(treefold_rank_ordered_counters* out);
#endif /* TREEFOLD_OLD_RANK_ORDERED_NAMES */

#ifdef __cplusplus
}
#endif

#endif
