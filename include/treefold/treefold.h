#ifndef TREEFOLD_TREEFOLD_H
#define TREEFOLD_TREEFOLD_H
/**
 * \file
 * The reproducible reduction from C (C99): the same bits as treefold::reducer
 * (treefold/reducer.hpp) for the same data, for every process count and block layout,
 * because every call here runs that reducer with its default kernel and exchange (or the
 * kernel and exchange a context's options name: treefold_context_create_info).
 *
 * N values lie in blocks on the ranks of a communicator; each call reduces all N of them to
 * ONE value along the tree fixed by the global index (see README.md) and returns it on every
 * rank (allreduce) or on a root (reduce). This is not MPI_Allreduce's element-wise vector
 * reduction: `count` is the number of values this rank holds, the result is one element.
 * The element-wise reproducible form is a row context (treefold_context_create_rows: k
 * columns, each reduced over the global index). The rank-ordered element-wise collectives
 * with MPI's signatures are treefold_rank_ordered_* in treefold/collective/reduce.h (the
 * same bits for one p, not across p).
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
 * that differs between ranks, a negative count, a reduce root outside [0, p)) makes every
 * rank return the error class, and a user op whose MPI_Reduce_local fails on one rank makes
 * every rank return MPI_ERR_OP. User-created ops are compared (when a context is created
 * and when the one-call form plans) by applying each rank's op to fixed probe values: ops
 * that differ there give MPI_ERR_OP on every rank; ops that agree on those values are not
 * told apart. Exceptions: MPI_COMM_NULL (or an intercommunicator) and a NULL context are
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

/** global_start for treefold_context_create_info: the blocks lie in rank order. */
#define TREEFOLD_RANK_ORDER (-1)

/**
 * The largest "threads" option (treefold_context_create_info): twice the hardware threads of
 * the largest nodes built (512), since a rank's threads share its node's cores; a larger
 * value is a typo, refused (MPI_ERR_INFO_VALUE on every rank) rather than started.
 */
#define TREEFOLD_MAX_THREADS 1024

/**
 * As treefold_context_create_block (or, with global_start TREEFOLD_RANK_ORDER, as
 * treefold_context_create), with options in an MPI_Info (MPI_INFO_NULL: none):
 *  - "exchange": how the ranks' partial results meet. "automatic" (the default: the fastest
 *    here, measured once per shape) or one of the exchanges automatic chooses from:
 *    "native", "binomial", "direct", "dual4", "schedule_rd". Every exchange gives the same
 *    bits; it must be the same on every rank (else MPI_ERR_ARG on every rank). It overrides
 *    TREEFOLD_EXCHANGE in the environment.
 *  - "threads": a positive integer up to TREEFOLD_MAX_THREADS, the threads this rank's local
 *    values are reduced on (the same bits for every count; ranks may differ). For a
 *    user-created MPI_Op, more than one thread needs MPI_THREAD_MULTIPLE (MPI_Reduce_local
 *    runs on several threads). A rank that cannot start its threads fails the creation on
 *    every rank (MPI_ERR_NO_MEM).
 *  - "kernel": the local kernel this rank's values are reduced with: "best" (the default: the
 *    best SIMD kernel of this CPU, the scalar one for short runs and where there is no SIMD
 *    form), "scalar" (one value at a time), or one architecture's SIMD kernel, "sse2",
 *    "avx2", "avx512f" (MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX on real and integer types only,
 *    and only on a CPU that has it). Every kernel gives the same bits; ranks may differ.
 * Any other key is MPI_ERR_INFO_KEY and a value that is not one of these (or a kernel this
 * rank cannot run) MPI_ERR_INFO_VALUE, on every rank. Collective.
 */
int treefold_context_create_info(MPI_Comm comm, int64_t global_start, int64_t local_count, MPI_Datatype datatype,
                                 MPI_Op op, MPI_Info info, treefold_context* ctx);

/**
 * The element-wise reproducible reduction (the conversion of an element-wise MPI_Allreduce of
 * `k` values): each of the N global indices holds a row of `k` values, this rank the rows
 * [global_start, global_start + local_count) (TREEFOLD_RANK_ORDER: rows in rank order), and
 * column c of the result is the reduction of column c over all N indices, with the bits a
 * context of one value per index gives for that column alone, for every p and layout.
 * treefold_allreduce_ctx / treefold_reduce_ctx then read local_count * k values (row-major:
 * row i's values at [i * k, i * k + k)) and write k values; the context's buffer holds
 * local_count * k. `k` must be positive and the same on every rank (MPI_ERR_COUNT for
 * k <= 0, MPI_ERR_ARG when the ranks differ). `info` as for treefold_context_create_info, but
 * without exchange, threads or kernel (MPI_ERR_INFO_VALUE): rows take the direct exchange
 * on one thread with their row kernel. Collective.
 */
int treefold_context_create_rows(MPI_Comm comm, int64_t global_start, int64_t local_count, int64_t k,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Info info, treefold_context* ctx);

/** Values per global index: k for treefold_context_create_rows, else 1 (-1 for a NULL context). */
int64_t treefold_context_width(treefold_context ctx);

/**
 * The name of the exchange the context runs ("binomial", ...: for "automatic", the one it
 * chose when it was created); NULL for a NULL context. Valid while the context lives.
 */
const char* treefold_context_exchange(treefold_context ctx);

/**
 * The local kernel's option name ("best" by default, "scalar", "sse2", "avx2", "avx512f");
 * NULL for a NULL context. A static string.
 */
const char* treefold_context_kernel(treefold_context ctx);

/** The threads this rank's local values are reduced on (1 by default; -1 for a NULL context). */
int treefold_context_threads(treefold_context ctx);

/**
 * What this rank sent during the context's last call (all 0 before the first call): the
 * point-to-point messages and their bytes, and the collective operations (MPI_Bcast,
 * MPI_Iallreduce, ...) and their bytes. Any pointer may be NULL. Local.
 */
int treefold_context_last_counters(treefold_context ctx, int64_t* messages, int64_t* bytes, int64_t* collectives,
                                   int64_t* collective_bytes);

/**
 * The reduction of all N values into *result (one element) on every rank, the same bits
 * everywhere. Collective over the context's communicator. `local` holds this rank's
 * local_count values (it may be NULL when that count is 0, and it may be the context's own
 * buffer); it is not modified. `result` may alias `local`.
 */
int treefold_allreduce_ctx(treefold_context ctx, const void* local, void* result);

/**
 * The reduction into *result on `root` only (`result` is not touched and may be NULL on the
 * other ranks). Collective; an error is returned on every rank (a root outside [0, p) on any
 * rank: MPI_ERR_ROOT). `root` must be the same on every rank: with TREEFOLD_CHECK=1 in the
 * environment (of any rank, when the context is created) differing roots return
 * MPI_ERR_ROOT on every rank; without it they are an erroneous program, as in MPI, yet every
 * rank completes the call (a rank naming itself the root gets the result) and no later call
 * sees its messages.
 */
int treefold_reduce_ctx(treefold_context ctx, const void* local, void* result, int root);

/** A nonblocking call in flight (treefold_iallreduce_ctx, treefold_ireduce_ctx); NULL when none. */
typedef struct treefold_request_s* treefold_request;

/**
 * Starts treefold_allreduce_ctx and returns at once with *request (MPI_Iallreduce's role):
 * this rank's local values are reduced before it returns, and the exchange progresses in the
 * MPI library. `local` and `result` must stay valid, and `local` unmodified, until
 * treefold_wait or treefold_test completes the request; the context takes no other call
 * meanwhile. Collective (every rank starts it, in the same order as its other calls on the
 * context); the same bits as the blocking call. The call's errors (a NULL buffer or
 * MPI_IN_PLACE on some rank: MPI_ERR_BUFFER; a reduce root outside [0, p) on some rank:
 * MPI_ERR_ROOT; a failing user op) are returned on every rank by the completing treefold_wait
 * or treefold_test. With TREEFOLD_CHECK=1, roots that differ (MPI_ERR_ROOT) and a nonblocking
 * call on some ranks against a blocking one on others (MPI_ERR_ARG) are returned here, on
 * every rank. Errors returned here otherwise (NULL context or request, a row context:
 * MPI_ERR_ARG; a call already in flight on the context: MPI_ERR_PENDING) leave *request NULL
 * and are local: this rank took no part in the call.
 */
int treefold_iallreduce_ctx(treefold_context ctx, const void* local, void* result, treefold_request* request);

/** The nonblocking treefold_reduce_ctx (MPI_Ireduce's role), as treefold_iallreduce_ctx. */
int treefold_ireduce_ctx(treefold_context ctx, const void* local, void* result, int root, treefold_request* request);

/**
 * Completes *request, writes its result and sets *request to NULL (a NULL *request returns
 * MPI_SUCCESS at once, like MPI_REQUEST_NULL). Returns the call's error class, as the
 * blocking call would. Every started request must be completed before its context is
 * destroyed (treefold_context_destroy refuses with MPI_ERR_PENDING until then). A request
 * handle names its context's one call slot: a copy of a request waited for after the
 * original returns MPI_ERR_REQUEST, unless a newer call on the same context is in flight,
 * which that copy then completes (MPI leaves copies of requests undefined; keep one handle
 * per call). No copy may be used after its context is destroyed.
 */
int treefold_wait(treefold_request* request);

/**
 * *flag = 1 and as treefold_wait when the call has completed (or *request is NULL); else
 * *flag = 0 and MPI_SUCCESS. Local.
 */
int treefold_test(treefold_request* request, int* flag);

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
 * A context must be destroyed before MPI_Finalize. A context whose nonblocking call is in
 * flight is not destroyed: MPI_ERR_PENDING, *ctx unchanged (complete the call, then destroy).
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
 * MPI_IN_PLACE as sendbuf (on any rank): this rank's local_count values are read from
 * recvbuf, and the result overwrites recvbuf[0].
 */
int treefold_allreduce(const void* sendbuf, void* recvbuf, int local_count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm);

/** treefold_allreduce with a 64-bit count. */
int treefold_allreduce_c(const void* sendbuf, void* recvbuf, int64_t local_count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm);

/**
 * The one-call reduce with MPI_Reduce's shape: treefold_allreduce's reduction of all N
 * values, into *recvbuf (one element) on `root` only (recvbuf is not touched and may be NULL
 * elsewhere). It plans on every call (one small all-gather that agrees on the arguments and
 * one of the counts), so every argument error, a root outside [0, p) included, is returned
 * on every rank; for repeated reductions, a context and treefold_reduce_ctx plan once. `root`
 * must be the same on every rank (as in MPI). MPI_IN_PLACE as sendbuf on the root: the
 * root's values are read from recvbuf and the result overwrites recvbuf[0] (MPI_ERR_BUFFER
 * on every rank when another rank passes it). Collective.
 */
int treefold_reduce(const void* sendbuf, void* recvbuf, int local_count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm);

/** treefold_reduce with a 64-bit count. */
int treefold_reduce_c(const void* sendbuf, void* recvbuf, int64_t local_count, MPI_Datatype datatype, MPI_Op op,
                      int root, MPI_Comm comm);

/**
 * The reproducible dot product: the sum over the global index of x[i] * y[i], each product
 * rounded once (never fused into the sum), along treefold's fixed tree, into *result on every
 * rank: the bits of treefold_allreduce (MPI_DOUBLE, MPI_SUM) of the stored products, and of
 * the C++ treefold::dot_reducer, for every process count. x and y hold this rank's
 * local_count values of the global arrays, blocks in rank order (NULL allowed when
 * local_count is 0). The plan is cached on the communicator as treefold_allreduce's is
 * (planned again, with every rank's arguments checked, when any rank's local_count changes).
 * Errors on every rank: a negative local_count (MPI_ERR_COUNT), a NULL x, y with a positive
 * count or a NULL result (MPI_ERR_BUFFER). Collective.
 */
int treefold_dot(const double* x, const double* y, int64_t local_count, double* result, MPI_Comm comm);

/** The most terms treefold_dots takes in one call. */
#define TREEFOLD_DOTS_MAX 4

/**
 * k reductions over the same layout in one exchange (one message per tree step):
 * results[c] is the dot product of x[c] and y[c] (the bits of treefold_dot on them alone), or,
 * where y is NULL or y[c] is NULL, the sum of x[c] (the bits of treefold_allreduce of x[c]).
 * k in [1, TREEFOLD_DOTS_MAX] and the same on every rank (else MPI_ERR_ARG on every rank);
 * results holds k doubles. The plan is cached as treefold_dot's (one per communicator: calls
 * alternating between different k plan again each time). Errors as treefold_dot. Collective.
 */
int treefold_dots(int k, const double* const* x, const double* const* y, int64_t local_count, double* results,
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
