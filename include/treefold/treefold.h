#ifndef TREEFOLD_TREEFOLD_H
#define TREEFOLD_TREEFOLD_H
/**
 * The reproducible reduction from C (C99): the same bits as treefold::reducer
 * (treefold/reducer.hpp) for the same data, for every process count and block layout,
 * because every call here runs that reducer with its default kernel and exchange.
 *
 * N values lie in blocks on the ranks of a communicator; each call reduces all N of them to
 * ONE value along the tree fixed by the global index (see README.md) and returns it on every
 * rank (allreduce) or on a root (reduce). This is not MPI_Allreduce's element-wise vector
 * reduction: `count` is the number of values this rank holds, the result is one element.
 *
 * Types: MPI_DOUBLE, MPI_FLOAT, MPI_INT32_T, MPI_INT64_T, MPI_C_DOUBLE_COMPLEX and their
 * equivalents (MPI_INT, MPI_LONG_LONG, MPI_LONG where 64-bit; Fortran's
 * MPI_DOUBLE_PRECISION, MPI_REAL8, MPI_REAL, MPI_REAL4, MPI_INTEGER4, MPI_INTEGER8,
 * MPI_DOUBLE_COMPLEX, MPI_COMPLEX16). Operations: MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX
 * (MIN and MAX not for complex), and any user-created MPI_Op (MPI_Op_create), applied with
 * MPI_Reduce_local to one element at a time with the left operand covering the lower indices
 * (the result is `left op right`, whatever the op's commutativity flag says). Signed integer
 * sums and products wrap modulo 2^bits.
 *
 * Errors: every function returns MPI_SUCCESS or an MPI error class (MPI_ERR_COMM,
 * MPI_ERR_TYPE, MPI_ERR_OP, MPI_ERR_COUNT, MPI_ERR_ROOT, MPI_ERR_ARG, MPI_ERR_BUFFER,
 * MPI_ERR_NO_MEM, MPI_ERR_OTHER, or the class of an MPI call that failed inside); argument
 * errors never reach the communicator's error handler (an MPI call failing inside treefold
 * goes to the handler its duplicate communicator inherited). treefold_last_error() gives the
 * message.
 * Collective calls detect errors on every rank and return an error there, never leaving a
 * rank waiting: an argument that is wrong on one rank only (a NULL buffer, a datatype or op
 * that differs between ranks, a negative count) makes every rank return the error class,
 * and a user op whose MPI_Reduce_local fails on one rank makes every rank return
 * MPI_ERR_OP. Exceptions: MPI_COMM_NULL (or an intercommunicator) and a NULL context are
 * reported on the ranks that pass them, without communication (like MPI, all ranks must
 * pass the same communicator).
 *
 * Threads: a context may be used by one thread at a time; different contexts (each has its
 * own duplicate communicator) and treefold_allreduce may be called from several threads at
 * once when MPI was initialised with MPI_THREAD_MULTIPLE. treefold_last_error() is per
 * thread.
 *
 * Counts: this MPI (3.1) has no MPI-4 large-count (`_c`) functions, but treefold never
 * hands a count to MPI, so counts are int64_t throughout (treefold_allreduce takes MPI's
 * `int`; treefold_allreduce_c takes int64_t). A rank's block must fit in memory
 * (count * element size bytes).
 *
 * Link: mpicc app.c $(pkg-config --cflags --libs treefold) (see README.md).
 */

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A planned reduction over one communicator, layout, datatype and operation. */
typedef struct treefold_context_s* treefold_context;

/**
 * Plans a reduction where this rank holds `local_count` values and the blocks lie in rank
 * order (rank 0 first). Collective over `comm`. On success *ctx is a new context; on error
 * *ctx is NULL (on every rank: all of them return an error class). `local_count` may be 0
 * on some ranks. N = 0 in total: the calls return the operation's identity (0 for MPI_SUM,
 * 1 for MPI_PROD, +inf / -inf or the integer type's limits for MPI_MIN / MPI_MAX); under a
 * user-created MPI_Op, which has none, creation fails with MPI_ERR_COUNT. A NaN result of
 * the predefined operations is the canonical quiet NaN (0x7ff8000000000000 for double).
 */
int treefold_context_create(MPI_Comm comm, int64_t local_count, MPI_Datatype datatype, MPI_Op op,
                            treefold_context* ctx);

/**
 * As treefold_context_create, but this rank declares its block: the global indices
 * [global_start, global_start + local_count). Blocks may be in any rank order; gaps or
 * overlaps between them are MPI_ERR_ARG on every rank.
 */
int treefold_context_create_block(MPI_Comm comm, int64_t global_start, int64_t local_count,
                                  MPI_Datatype datatype, MPI_Op op, treefold_context* ctx);

/**
 * The reduction of all N values into *result (one element) on every rank, the same bits
 * everywhere. Collective over the context's communicator. `local` holds this rank's
 * local_count values (it may be NULL when that count is 0, and it may be the context's own
 * buffer); it is not modified. `result` may alias `local`.
 */
int treefold_allreduce_ctx(treefold_context ctx, const void* local, void* result);

/**
 * The reduction into *result on `root` only (`result` is not touched and may be NULL on the
 * other ranks). Collective; `root` must be the same on every rank (else MPI_ERR_ROOT or a
 * mismatch). An error is returned on the root, on the rank where it happened and on ranks
 * whose part of the exchange saw it; others may return MPI_SUCCESS (a reduce does not
 * broadcast).
 */
int treefold_reduce_ctx(treefold_context ctx, const void* local, void* result, int root);

/**
 * A buffer of local_count elements owned by the context (zero-filled, suitably aligned), for
 * applications that fill their values one by one; valid until the context is destroyed.
 * NULL for a NULL context or a local count of 0.
 */
void* treefold_context_buffer(treefold_context ctx);

/** The number of values this rank holds (-1 for a NULL context). */
int64_t treefold_context_local_count(treefold_context ctx);

/** N, the number of values over all ranks (-1 for a NULL context). */
int64_t treefold_context_global_count(treefold_context ctx);

/**
 * Frees the context and sets *ctx to NULL (a NULL *ctx is allowed). It frees the context's
 * duplicate communicators, so every rank should destroy its context, as with MPI_Comm_free.
 * A context must be destroyed before MPI_Finalize.
 */
int treefold_context_destroy(treefold_context* ctx);

/**
 * The one-call form with MPI's shape: every rank contributes its `local_count` consecutive
 * values of the global array in rank order, and every rank gets the reduction of all N of
 * them in *recvbuf (one element). The plan is built on the first call with a communicator
 * (one small all-gather that agrees on datatype and op, and one of the counts) and cached on
 * it (freed with the communicator); later calls with the same datatype, op and counts run the
 * kept plan with no extra communication. When any rank changes one of them (or passes an
 * unusable buffer), that call's kept reduction fails on every rank and every rank plans
 * again, so errors are still reported on every rank. Collective.
 * MPI_IN_PLACE is not accepted (the input and the result differ in size).
 */
int treefold_allreduce(const void* sendbuf, void* recvbuf, int local_count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm);

/** treefold_allreduce with a 64-bit count. */
int treefold_allreduce_c(const void* sendbuf, void* recvbuf, int64_t local_count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm);

/**
 * The message of the last call on this thread that returned an error ("" after a call that
 * succeeded). Valid until the thread's next treefold call.
 */
const char* treefold_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
