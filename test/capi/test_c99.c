/* The C API from C99 (built with -std=c99 -pedantic): a rank-order context, the context's
 * own buffer, a rooted reduce, the one-call form, context options (MPI_Info) with their
 * getters, and error classes, checked against exactly known sums. */
#include <treefold/treefold.h>

#include <stdio.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char* what, int rank)
{
    if (!ok) {
        fprintf(stderr, "test_c99: rank %d: %s (%s)\n", rank, what, treefold_last_error());
        ++failures;
    }
}

int main(int argc, char** argv)
{
    int rank = 0, size = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Rank r holds r + 2 values; the global array is 1, 2, ..., N (exact in int64 and double). */
    const int64_t mine = rank + 2;
    int64_t start = 0;
    for (int r = 0; r < rank; ++r) {
        start += r + 2;
    }
    treefold_context ctx = NULL;
    check(treefold_context_create(MPI_COMM_WORLD, mine, MPI_INT64_T, MPI_SUM, &ctx) == MPI_SUCCESS, "create", rank);
    const int64_t n = treefold_context_global_count(ctx);
    int64_t* buf = (int64_t*)treefold_context_buffer(ctx);
    for (int64_t i = 0; i < mine; ++i) {
        buf[i] = start + i + 1;
    }
    int64_t total = 0;
    check(treefold_allreduce_ctx(ctx, buf, &total) == MPI_SUCCESS, "allreduce", rank);
    check(total == n * (n + 1) / 2, "int64 sum", rank);
    int64_t at_root = -1;
    check(treefold_reduce_ctx(ctx, buf, &at_root, size - 1) == MPI_SUCCESS, "reduce", rank);
    check(rank == size - 1 ? at_root == total : at_root == -1, "reduce result", rank);
    check(treefold_context_destroy(&ctx) == MPI_SUCCESS && ctx == NULL, "destroy", rank);

    /* Declared blocks, doubles: halves are exact. */
    double halves[64];
    for (int64_t i = 0; i < mine; ++i) {
        halves[i] = 0.5 * (double)(start + i + 1);
    }
    check(treefold_context_create_block(MPI_COMM_WORLD, start, mine, MPI_DOUBLE, MPI_SUM, &ctx) == MPI_SUCCESS,
          "create_block", rank);
    double sum = 0;
    check(treefold_allreduce_ctx(ctx, halves, &sum) == MPI_SUCCESS, "allreduce double", rank);
    check(sum == 0.5 * (double)(n * (n + 1) / 2), "double sum", rank);
    treefold_context_destroy(&ctx);

    /* The one-call form (blocks in rank order): the same sum, twice (the second from the cache). */
    for (int round = 0; round < 2; ++round) {
        double again = 0;
        check(treefold_allreduce(halves, &again, (int)mine, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
              "treefold_allreduce", rank);
        check(again == sum, "treefold_allreduce sum", rank);
    }

    /* Options in an MPI_Info: every exchange by name gives the same sum; the exchange run
     * (automatic's choice), the threads and the last call's counters are read back. */
    {
        static const char* const exchanges[] = {"native", "binomial", "direct", "dual4", "schedule_rd", "automatic"};
        for (size_t e = 0; e < sizeof exchanges / sizeof exchanges[0]; ++e) {
            MPI_Info info;
            MPI_Info_create(&info);
            MPI_Info_set(info, "exchange", exchanges[e]);
            MPI_Info_set(info, "threads", "2");
            check(treefold_context_create_info(MPI_COMM_WORLD, TREEFOLD_RANK_ORDER, mine, MPI_DOUBLE, MPI_SUM, info,
                                               &ctx) == MPI_SUCCESS,
                  "create_info", rank);
            MPI_Info_free(&info);
            const char* used = treefold_context_exchange(ctx);
            const int automatic = strcmp(exchanges[e], "automatic") == 0;
            check(used != NULL && (automatic ? strcmp(used, "automatic") != 0 : strcmp(used, exchanges[e]) == 0),
                  "treefold_context_exchange", rank);
            check(treefold_context_threads(ctx) == 2, "treefold_context_threads", rank);
            int64_t messages = -1, bytes = -1, collectives = -1, collective_bytes = -1;
            check(treefold_context_last_counters(ctx, &messages, &bytes, &collectives, &collective_bytes) ==
                          MPI_SUCCESS &&
                      messages == 0 && collectives == 0,
                  "counters before the first call", rank);
            double again = 0;
            check(treefold_allreduce_ctx(ctx, halves, &again) == MPI_SUCCESS && again == sum, "sum under an exchange",
                  rank);
            check(treefold_context_last_counters(ctx, &messages, &bytes, &collectives, &collective_bytes) ==
                      MPI_SUCCESS,
                  "treefold_context_last_counters", rank);
            /* Every rank of p > 1 takes part in some message or collective. */
            check(size == 1 || (messages + collectives > 0 && bytes + collective_bytes > 0), "counters after a call",
                  rank);
            treefold_context_destroy(&ctx);
        }
        /* A wrong key or value on one rank is the same error class on every rank; exchanges that
         * differ between ranks are MPI_ERR_ARG everywhere. */
        const char* const key[] = {"exchnage", "exchange", "threads", "exchange"};
        const char* const value[] = {"direct", "fastest", "0", "direct"};
        const int expected[] = {MPI_ERR_INFO_KEY, MPI_ERR_INFO_VALUE, MPI_ERR_INFO_VALUE, MPI_ERR_ARG};
        for (int c = 0; c < 4; ++c) {
            if (c == 3 && size == 1) {
                break;
            }
            MPI_Info info;
            MPI_Info_create(&info);
            MPI_Info_set(info, "exchange", "binomial");
            if (rank == 0) {
                MPI_Info_set(info, key[c], value[c]);
            }
            const int rc = treefold_context_create_info(MPI_COMM_WORLD, start, mine, MPI_DOUBLE, MPI_SUM, info, &ctx);
            MPI_Info_free(&info);
            check(rc == expected[c] && ctx == NULL, "option error class on every rank", rank);
            check(strlen(treefold_last_error()) > 0, "option error message", rank);
        }
    }

    check(treefold_context_create(MPI_COMM_NULL, 1, MPI_DOUBLE, MPI_SUM, &ctx) == MPI_ERR_COMM, "MPI_COMM_NULL", rank);
    check(strlen(treefold_last_error()) > 0, "error message", rank);

    MPI_Finalize();
    if (rank == 0 && failures == 0) {
        printf("test_c99: ok at p = %d\n", size);
    }
    return failures == 0 ? 0 : 1;
}
