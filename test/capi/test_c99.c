/* The C API from C99 (built with -std=c99 -pedantic): a rank-order context, the context's
 * own buffer, a rooted reduce, nonblocking calls, the one-call forms (MPI_IN_PLACE too),
 * context options (MPI_Info: exchange, threads, kernel) with their getters, element-wise (row) contexts against
 * per-column contexts, and error classes, checked against exactly known sums. */
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

    /* Nonblocking: polled with treefold_test, or waited for; the same sum; a NULL buffer on
     * one rank is every rank's error at completion. */
    {
        treefold_request req = NULL;
        double all = 0, at_last = -1;
        int flag = 0, rc = MPI_SUCCESS;
        check(treefold_context_create_block(MPI_COMM_WORLD, start, mine, MPI_DOUBLE, MPI_SUM, &ctx) == MPI_SUCCESS,
              "create_block for nonblocking calls", rank);
        check(treefold_iallreduce_ctx(ctx, halves, &all, &req) == MPI_SUCCESS && req != NULL, "iallreduce", rank);
        while (flag == 0 && rc == MPI_SUCCESS) {
            rc = treefold_test(&req, &flag);
        }
        check(rc == MPI_SUCCESS && req == NULL && all == sum, "treefold_test completes the iallreduce", rank);
        check(treefold_ireduce_ctx(ctx, halves, rank == size - 1 ? &at_last : NULL, size - 1, &req) == MPI_SUCCESS,
              "ireduce", rank);
        check(treefold_wait(&req) == MPI_SUCCESS && req == NULL && (rank == size - 1 ? at_last == sum : at_last == -1),
              "treefold_wait completes the ireduce", rank);
        check(treefold_wait(&req) == MPI_SUCCESS, "treefold_wait on a NULL request", rank);
        check(treefold_iallreduce_ctx(ctx, rank == 0 ? NULL : halves, &all, &req) == MPI_SUCCESS, "iallreduce, NULL",
              rank);
        check(treefold_wait(&req) == MPI_ERR_BUFFER, "a NULL buffer on rank 0: MPI_ERR_BUFFER at every wait", rank);
        /* A root outside [0, p) takes part in the call and fails at its completion. */
        check(treefold_ireduce_ctx(ctx, halves, &all, size, &req) == MPI_SUCCESS && treefold_wait(&req) == MPI_ERR_ROOT,
              "ireduce root", rank);
        check(treefold_ireduce_ctx(ctx, halves, &all, -1, &req) == MPI_SUCCESS && treefold_wait(&req) == MPI_ERR_ROOT,
              "ireduce root -1", rank);
        treefold_context_destroy(&ctx);
    }

    /* The one-call form (blocks in rank order): the same sum, twice (the second from the cache). */
    for (int round = 0; round < 2; ++round) {
        double again = 0;
        check(treefold_allreduce(halves, &again, (int)mine, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
              "treefold_allreduce", rank);
        check(again == sum, "treefold_allreduce sum", rank);
    }
    /* The one-call reduce to a root (MPI_IN_PLACE there); its argument errors on every rank. */
    {
        double at_last = -1, in_place[64];
        memcpy(in_place, halves, sizeof(double) * (size_t)mine);
        check(treefold_reduce(halves, rank == size - 1 ? &at_last : NULL, (int)mine, MPI_DOUBLE, MPI_SUM, size - 1,
                              MPI_COMM_WORLD) == MPI_SUCCESS &&
                  (rank == size - 1 ? at_last == sum : at_last == -1),
              "treefold_reduce", rank);
        check(treefold_reduce(rank == 0 ? MPI_IN_PLACE : halves, rank == 0 ? in_place : NULL, (int)mine, MPI_DOUBLE,
                              MPI_SUM, 0, MPI_COMM_WORLD) == MPI_SUCCESS &&
                  (rank != 0 || in_place[0] == sum),
              "treefold_reduce with MPI_IN_PLACE on the root", rank);
        check(treefold_reduce(halves, NULL, (int)mine, MPI_DOUBLE, MPI_SUM, size - 1, MPI_COMM_WORLD) == MPI_ERR_BUFFER,
              "treefold_reduce: NULL recvbuf on the root, on every rank", rank);
        check(treefold_reduce(halves, &at_last, (int)mine, MPI_DOUBLE, MPI_SUM, size, MPI_COMM_WORLD) == MPI_ERR_ROOT,
              "treefold_reduce: root outside [0, p) on every rank", rank);
    }
    /* MPI_IN_PLACE: the values from recvbuf, the result in its first element. */
    {
        double in_place[64];
        memcpy(in_place, halves, sizeof(double) * (size_t)mine);
        check(treefold_allreduce(MPI_IN_PLACE, in_place, (int)mine, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) ==
                      MPI_SUCCESS &&
                  in_place[0] == sum,
              "treefold_allreduce with MPI_IN_PLACE", rank);
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

    /* The "kernel" option: every kernel this CPU runs gives the bits of the default one, for
     * sums whose bracketing matters (1000 values a rank, large and small, so the SIMD kernels
     * run long nodes), on 1 and 3 threads; the getter reports it; a bad name, an architecture
     * kernel for complex, and a kernel on rows are MPI_ERR_INFO_VALUE on every rank. */
    {
        enum { M = 1000 };
        static double xs[M];
        static float fs[M];
        static int32_t is[M];
        for (int i = 0; i < M; ++i) {
            const double g = (double)(rank * M + i + 1);
            xs[i] = (i % 7 == 3 ? 1e15 : 1.0) / g - (i % 5 == 0 ? 3e14 / g : 0.0);
            fs[i] = (float)xs[i];
            is[i] = (int32_t)((rank * M + i) * 7919 % 100003) - 50000;
        }
        static const char* const kernels[] = {"best", "scalar", "sse2", "avx2", "avx512f"};
        double want_x = 0;
        float want_f = 0;
        int32_t want_i = 0;
        for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; ++k) {
            for (int threads = 1; threads <= 3; threads += 2) {
                MPI_Info info;
                char count[4];
                snprintf(count, sizeof count, "%d", threads);
                MPI_Info_create(&info);
                MPI_Info_set(info, "kernel", kernels[k]);
                MPI_Info_set(info, "threads", count);
                treefold_context xc = NULL, fc = NULL, ic = NULL;
                const int rc = treefold_context_create_info(MPI_COMM_WORLD, TREEFOLD_RANK_ORDER, M, MPI_DOUBLE,
                                                            MPI_SUM, info, &xc);
                if (rc == MPI_ERR_INFO_VALUE && k >= 2) { /* an architecture this CPU lacks (on some rank) */
                    check(strstr(treefold_last_error(), "does not support") != NULL, "kernel refused: why", rank);
                    MPI_Info_free(&info);
                    continue;
                }
                check(rc == MPI_SUCCESS, "create_info with a kernel", rank);
                check(treefold_context_create_info(MPI_COMM_WORLD, TREEFOLD_RANK_ORDER, M, MPI_FLOAT, MPI_SUM, info,
                                                   &fc) == MPI_SUCCESS &&
                          treefold_context_create_info(MPI_COMM_WORLD, TREEFOLD_RANK_ORDER, M, MPI_INT32_T, MPI_MAX,
                                                       info, &ic) == MPI_SUCCESS,
                      "create_info with a kernel (float, int32)", rank);
                MPI_Info_free(&info);
                check(treefold_context_kernel(xc) != NULL && strcmp(treefold_context_kernel(xc), kernels[k]) == 0,
                      "treefold_context_kernel", rank);
                double x = 0;
                float f = 0;
                int32_t i = 0;
                check(treefold_allreduce_ctx(xc, xs, &x) == MPI_SUCCESS && treefold_allreduce_ctx(fc, fs, &f) ==
                                                                                   MPI_SUCCESS &&
                          treefold_allreduce_ctx(ic, is, &i) == MPI_SUCCESS,
                      "allreduce under a kernel", rank);
                if (k == 0 && threads == 1) {
                    want_x = x;
                    want_f = f;
                    want_i = i;
                }
                check(memcmp(&x, &want_x, sizeof x) == 0 && memcmp(&f, &want_f, sizeof f) == 0 && i == want_i,
                      "every kernel gives the default kernel's bits", rank);
                treefold_context_destroy(&xc);
                treefold_context_destroy(&fc);
                treefold_context_destroy(&ic);
            }
        }
        check(treefold_context_create(MPI_COMM_WORLD, 1, MPI_DOUBLE, MPI_SUM, &ctx) == MPI_SUCCESS &&
                  strcmp(treefold_context_kernel(ctx), "best") == 0,
              "the default kernel is best", rank);
        treefold_context_destroy(&ctx);
        check(treefold_context_kernel(NULL) == NULL, "treefold_context_kernel(NULL)", rank);
        /* Bad values on one rank (the last): every rank's MPI_ERR_INFO_VALUE. */
        const char* const bad[] = {"fastest", "avx2"};
        const MPI_Datatype type[] = {MPI_DOUBLE, MPI_C_DOUBLE_COMPLEX};
        for (int c = 0; c < 2; ++c) {
            MPI_Info info;
            MPI_Info_create(&info);
            MPI_Info_set(info, "kernel", rank == size - 1 ? bad[c] : "scalar");
            check(treefold_context_create_info(MPI_COMM_WORLD, TREEFOLD_RANK_ORDER, 1, type[c], MPI_SUM, info, &ctx) ==
                          MPI_ERR_INFO_VALUE &&
                      ctx == NULL,
                  "a bad kernel on one rank: MPI_ERR_INFO_VALUE on every rank", rank);
            check(treefold_context_create_rows(MPI_COMM_WORLD, TREEFOLD_RANK_ORDER, 1, 2, MPI_DOUBLE, MPI_SUM, info,
                                               &ctx) == MPI_ERR_INFO_VALUE,
                  "rows take no kernel option", rank);
            MPI_Info_free(&info);
        }
    }

    /* Element-wise: rows of k = 3 values per global index g = 1..N, each column reduced over
     * the global index with the bits a context of that column alone gives. */
    {
        enum { K = 3 };
        double rows[64 * K], column[64], want[K], got[K], at_root[K] = {-1, -1, -1};
        for (int64_t i = 0; i < mine; ++i) {
            const double g = (double)(start + i + 1);
            rows[i * K] = 0.5 * g;
            rows[i * K + 1] = 1.0 / g;
            rows[i * K + 2] = g * g / 3.0 - 1e12 * (double)((start + i) % 2);
        }
        for (int c = 0; c < K; ++c) {
            for (int64_t i = 0; i < mine; ++i) {
                column[i] = rows[i * K + c];
            }
            check(treefold_context_create_block(MPI_COMM_WORLD, start, mine, MPI_DOUBLE, MPI_SUM, &ctx) == MPI_SUCCESS &&
                      treefold_allreduce_ctx(ctx, column, &want[c]) == MPI_SUCCESS,
                  "a column's own context", rank);
            treefold_context_destroy(&ctx);
        }
        check(treefold_context_create_rows(MPI_COMM_WORLD, TREEFOLD_RANK_ORDER, mine, K, MPI_DOUBLE, MPI_SUM,
                                           MPI_INFO_NULL, &ctx) == MPI_SUCCESS,
              "create_rows", rank);
        check(treefold_context_width(ctx) == K && treefold_context_global_count(ctx) == n, "rows: width and N", rank);
        double* buffer = treefold_context_buffer(ctx);
        memcpy(buffer, rows, sizeof(double) * (size_t)(mine * K));
        check(treefold_allreduce_ctx(ctx, buffer, got) == MPI_SUCCESS && memcmp(got, want, sizeof got) == 0,
              "rows: every column has its own context's bits", rank);
        check(treefold_reduce_ctx(ctx, rows, rank == 0 ? at_root : NULL, 0) == MPI_SUCCESS &&
                  (rank != 0 || memcmp(at_root, want, sizeof want) == 0),
              "rows: reduce to a root", rank);
        treefold_context_destroy(&ctx);
        /* k = 0 on one rank, or an exchange option: the same error class on every rank. */
        check(treefold_context_create_rows(MPI_COMM_WORLD, start, mine, rank == 0 ? 0 : K, MPI_DOUBLE, MPI_SUM,
                                           MPI_INFO_NULL, &ctx) == MPI_ERR_COUNT &&
                  ctx == NULL,
              "rows: k = 0", rank);
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "exchange", "binomial");
        check(treefold_context_create_rows(MPI_COMM_WORLD, start, mine, K, MPI_DOUBLE, MPI_SUM, info, &ctx) ==
                  MPI_ERR_INFO_VALUE,
              "rows: no exchange option", rank);
        MPI_Info_free(&info);
    }

    check(treefold_context_create(MPI_COMM_NULL, 1, MPI_DOUBLE, MPI_SUM, &ctx) == MPI_ERR_COMM, "MPI_COMM_NULL", rank);
    check(strlen(treefold_last_error()) > 0, "error message", rank);

    MPI_Finalize();
    if (rank == 0 && failures == 0) {
        printf("test_c99: ok at p = %d\n", size);
    }
    return failures == 0 ? 0 : 1;
}
