/* The nonblocking and context call forms keep the blocking calls' promises (C99): one rank's
 * mistake is every rank's error, never a hang, and the ranks stay in step for the next call.
 * Run twice by ctest, without and with TREEFOLD_CHECK=1 (read when a context is created):
 *  - a reduce root outside [0, p), or -1, on one rank of a nonblocking reduce;
 *  - MPI_IN_PLACE or NULL as `local` on one rank, blocking and nonblocking;
 *  - destroying a context whose call is in flight (refused: MPI_ERR_PENDING, the call intact);
 *  - a copy of a request waited for after the original (MPI_ERR_REQUEST);
 *  - a blocking or second nonblocking call while one is in flight (MPI_ERR_PENDING);
 *  - a "threads" option beyond TREEFOLD_MAX_THREADS on one rank, and threads that cannot start
 *    on one rank (its address space capped);
 *  - with TREEFOLD_CHECK=1: a nonblocking call on one rank against a blocking one elsewhere.
 * After each error every rank makes a good call and checks its exactly known sum. */
/* POSIX: getrlimit, setrlimit (the test caps one rank's address space). */
#define _POSIX_C_SOURCE 200112L

#include <treefold/treefold.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int failures = 0;
static int rank = 0, size = 0;

static void check(int ok, const char* what)
{
    if (!ok) {
        fprintf(stderr, "test_call_forms: rank %d: %s (last error: %s)\n", rank, what, treefold_last_error());
        ++failures;
    }
}

/* Rank r holds r + 1 values; the global array is 1, 2, ..., N. */
static double values[64];
static double exact_sum = 0;

/* A good blocking call afterwards: every rank still in step, the right sum. */
static void still_in_step(treefold_context ctx, const char* after)
{
    double got = -1;
    const int rc = treefold_allreduce_ctx(ctx, values, &got);
    if (rc != MPI_SUCCESS || got != exact_sum) {
        fprintf(stderr, "test_call_forms: rank %d: the call after '%s' returned %d, sum %g (want %g)\n", rank, after,
                rc, got, exact_sum);
        ++failures;
    }
}

/* Starts, then waits unless the start failed: the error class every rank must see. */
static int start_and_wait(treefold_context ctx, const void* local, void* result, int root)
{
    treefold_request req = NULL;
    const int rc = root == -2 ? treefold_iallreduce_ctx(ctx, local, result, &req)
                              : treefold_ireduce_ctx(ctx, local, result, root, &req);
    if (rc != MPI_SUCCESS) {
        check(req == NULL, "a failed start leaves no request");
        return rc;
    }
    return treefold_wait(&req);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* env = getenv("TREEFOLD_CHECK");
    const int checking = env != NULL && env[0] != '\0' && strcmp(env, "0") != 0;
    const int last = size - 1;
    const int64_t mine = rank + 1;
    int64_t start = 0;
    for (int r = 0; r < rank; ++r) {
        start += r + 1;
    }
    for (int64_t i = 0; i < mine; ++i) {
        values[i] = (double)(start + i + 1);
    }
    const int64_t n = (int64_t)size * (size + 1) / 2;
    exact_sum = (double)(n * (n + 1) / 2);

    treefold_context ctx = NULL;
    check(treefold_context_create(MPI_COMM_WORLD, mine, MPI_DOUBLE, MPI_SUM, &ctx) == MPI_SUCCESS, "create");
    double result = -1;

    /* A nonblocking reduce whose root is out of range (p, then -1) on the last rank only. */
    if (size > 1) {
        check(start_and_wait(ctx, values, &result, rank == last ? size : 0) == MPI_ERR_ROOT,
              "ireduce: root p on one rank is MPI_ERR_ROOT on every rank");
        still_in_step(ctx, "a bad ireduce root on one rank");
        check(start_and_wait(ctx, values, &result, rank == last ? -1 : 0) == MPI_ERR_ROOT,
              "ireduce: root -1 on one rank is MPI_ERR_ROOT on every rank");
        still_in_step(ctx, "ireduce root -1 on one rank");
    }
    check(start_and_wait(ctx, values, &result, size) == MPI_ERR_ROOT, "ireduce: root p on every rank");
    still_in_step(ctx, "a bad ireduce root on every rank");

    /* MPI_IN_PLACE or NULL as local on the last rank: MPI_ERR_BUFFER everywhere, every form. */
    for (int form = 0; form < 4; ++form) {
        const void* local = rank != last ? (const void*)values : form % 2 == 0 ? MPI_IN_PLACE : NULL;
        int rc = MPI_SUCCESS;
        if (form < 2) {
            rc = start_and_wait(ctx, local, &result, form == 0 ? -2 : 0);
        } else {
            rc = form == 2 ? treefold_allreduce_ctx(ctx, local, &result) : treefold_reduce_ctx(ctx, local, &result, 0);
        }
        check(rc == MPI_ERR_BUFFER, "MPI_IN_PLACE or NULL local on one rank: MPI_ERR_BUFFER on every rank");
        if (rank == last && form % 2 == 0) {
            check(strstr(treefold_last_error(), "MPI_IN_PLACE") != NULL, "the message names MPI_IN_PLACE");
        }
        still_in_step(ctx, "an unusable local buffer on one rank");
    }

    /* Destroying a context with a call in flight is refused; the call completes afterwards. */
    {
        treefold_request req = NULL;
        check(treefold_iallreduce_ctx(ctx, values, &result, &req) == MPI_SUCCESS, "iallreduce");
        treefold_context kept = ctx;
        check(treefold_context_destroy(&ctx) == MPI_ERR_PENDING && ctx == kept,
              "destroy with a call in flight: MPI_ERR_PENDING, the context kept");
        /* A second call while one is in flight: MPI_ERR_PENDING, no request. */
        treefold_request other = NULL;
        double ignored = 0;
        check(treefold_iallreduce_ctx(ctx, values, &ignored, &other) == MPI_ERR_PENDING && other == NULL,
              "a second nonblocking call in flight: MPI_ERR_PENDING");
        check(treefold_allreduce_ctx(ctx, values, &ignored) == MPI_ERR_PENDING,
              "a blocking call with one in flight: MPI_ERR_PENDING");
        /* The copy, waited for after the original: not active. */
        treefold_request copy = req;
        check(treefold_wait(&req) == MPI_SUCCESS && result == exact_sum, "the call completes after the refusals");
        check(treefold_wait(&copy) == MPI_ERR_REQUEST && copy == NULL, "a waited copy: MPI_ERR_REQUEST");
        int flag = 0;
        copy = NULL;
        check(treefold_test(&copy, &flag) == MPI_SUCCESS && flag == 1, "treefold_test of a NULL request");
        still_in_step(ctx, "the refused destroy");
    }

    /* With the checks: a nonblocking call on the last rank against a blocking one elsewhere. */
    if (checking && size > 1) {
        int rc = MPI_SUCCESS;
        if (rank == last) {
            rc = start_and_wait(ctx, values, &result, -2);
        } else {
            rc = treefold_allreduce_ctx(ctx, values, &result);
        }
        check(rc == MPI_ERR_ARG, "TREEFOLD_CHECK: iallreduce against allreduce is MPI_ERR_ARG on every rank");
        check(strstr(treefold_last_error(), "nonblocking") != NULL, "the message names the call forms");
        still_in_step(ctx, "iallreduce against allreduce");
    }
    check(treefold_context_destroy(&ctx) == MPI_SUCCESS && ctx == NULL, "destroy");

    /* A threads option beyond the bound (or beyond any integer) on the last rank only. */
    {
        const char* const huge[] = {"99999999999", "100000", "99999999999999999999999"};
        for (int c = 0; c < 3; ++c) {
            MPI_Info info;
            MPI_Info_create(&info);
            MPI_Info_set(info, "threads", rank == last ? huge[c] : "2");
            check(treefold_context_create_info(MPI_COMM_WORLD, TREEFOLD_RANK_ORDER, mine, MPI_DOUBLE, MPI_SUM, info,
                                               &ctx) == MPI_ERR_INFO_VALUE &&
                      ctx == NULL,
                  "a huge threads option on one rank: MPI_ERR_INFO_VALUE on every rank");
            MPI_Info_free(&info);
        }
        char bound[16];
        snprintf(bound, sizeof bound, "%d", TREEFOLD_MAX_THREADS + 1);
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "threads", bound);
        check(treefold_context_create_info(MPI_COMM_WORLD, TREEFOLD_RANK_ORDER, mine, MPI_DOUBLE, MPI_SUM, info, &ctx) ==
                      MPI_ERR_INFO_VALUE &&
                  strstr(treefold_last_error(), "TREEFOLD_MAX_THREADS") != NULL,
              "threads = TREEFOLD_MAX_THREADS + 1 is refused, naming the bound");
        MPI_Info_free(&info);
        check(treefold_context_create(MPI_COMM_WORLD, mine, MPI_DOUBLE, MPI_SUM, &ctx) == MPI_SUCCESS, "create again");
        still_in_step(ctx, "the refused threads options");
        treefold_context_destroy(&ctx);
        /* Thread counts that differ between ranks (1 on some: no threads started there). */
        MPI_Info_create(&info);
        MPI_Info_set(info, "threads", rank % 2 == 0 ? "1" : "3");
        check(treefold_context_create_info(MPI_COMM_WORLD, TREEFOLD_RANK_ORDER, mine, MPI_DOUBLE, MPI_SUM, info, &ctx) ==
                  MPI_SUCCESS,
              "thread counts that differ between ranks");
        MPI_Info_free(&info);
        still_in_step(ctx, "thread counts that differ between ranks");
        treefold_context_destroy(&ctx);
    }

    /* Threads that cannot start on one rank, after the ranks agreed on the options: its address
     * space capped (RLIMIT_AS: this process's size plus 32 MiB, less than 63 thread stacks), the
     * last rank fails to start 64 threads; every rank must return MPI_ERR_NO_MEM (the others
     * returned a context and hung in their first call). Linux (/proc/self/statm) only. */
    if (size > 1) {
        long pages = 0;
        FILE* statm = fopen("/proc/self/statm", "r");
        const int readable = statm != NULL && fscanf(statm, "%ld", &pages) == 1;
        if (statm != NULL) {
            fclose(statm);
        }
        int everywhere = 0;
        MPI_Allreduce(&readable, &everywhere, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (everywhere) {
            struct rlimit saved;
            getrlimit(RLIMIT_AS, &saved);
            if (rank == last) {
                struct rlimit capped = saved;
                capped.rlim_cur = (rlim_t)pages * 4096u + (32u << 20);
                check(setrlimit(RLIMIT_AS, &capped) == 0, "setrlimit");
            }
            MPI_Info info;
            MPI_Info_create(&info);
            MPI_Info_set(info, "threads", rank == last ? "64" : rank % 2 == 0 ? "1" : "2"); /* (counts may differ) */
            const int rc = treefold_context_create_info(MPI_COMM_WORLD, TREEFOLD_RANK_ORDER, mine, MPI_DOUBLE, MPI_SUM,
                                                        info, &ctx);
            MPI_Info_free(&info);
            if (rank == last) {
                setrlimit(RLIMIT_AS, &saved);
            }
            check(rc == MPI_ERR_NO_MEM && ctx == NULL, "threads that cannot start on one rank: MPI_ERR_NO_MEM everywhere");
            if (rc == MPI_SUCCESS) {
                treefold_context_destroy(&ctx);
            }
            check(treefold_context_create(MPI_COMM_WORLD, mine, MPI_DOUBLE, MPI_SUM, &ctx) == MPI_SUCCESS,
                  "create after the failed threads");
            still_in_step(ctx, "threads that could not start");
            treefold_context_destroy(&ctx);
        }
    }

    MPI_Finalize();
    if (rank == 0 && failures == 0) {
        printf("test_call_forms: ok at p = %d%s\n", size, checking ? " with TREEFOLD_CHECK=1" : "");
    }
    return failures == 0 ? 0 : 1;
}
