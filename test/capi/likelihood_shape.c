/* A C99 program shaped like the RAxML-NG integration of treefold's C API: one persistent
 * context per data layout (a partition's block, created from its global start and local
 * count), the context's own buffer filled site by site, one all-reduce per evaluation of the
 * model, tens of thousands of calls. Built with -std=c99 -Werror and treefold's C usage
 * requirements alone. Every evaluation's log-likelihood must have the bits the C++
 * reducer gives for the same values (likelihood_reference.cpp). */
#include <treefold/treefold.h>

#include "likelihood_shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t bits_of(double x)
{
    uint64_t b = 0;
    memcpy(&b, &x, sizeof b);
    return b;
}

int main(int argc, char** argv)
{
    int rank = 0, size = 0, failed = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    treefold_context ctx[LIKELIHOOD_PARTITIONS];
    int64_t start[LIKELIHOOD_PARTITIONS], count[LIKELIHOOD_PARTITIONS];
    double* lnl[LIKELIHOOD_PARTITIONS];
    for (int part = 0; part < LIKELIHOOD_PARTITIONS; ++part) {
        likelihood_block(part, rank, size, &start[part], &count[part]);
        if (treefold_context_create_block(MPI_COMM_WORLD, start[part], count[part], MPI_DOUBLE, MPI_SUM,
                                          &ctx[part]) != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: create: %s\n", rank, treefold_last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        lnl[part] = malloc(sizeof(double) * LIKELIHOOD_EVALUATIONS);
    }
    /* The search: evaluations alternate between the partitions, as model updates do. */
    for (int e = 0; e < LIKELIHOOD_EVALUATIONS; ++e) {
        for (int part = 0; part < LIKELIHOOD_PARTITIONS; ++part) {
            double* site = treefold_context_buffer(ctx[part]);
            for (int64_t i = 0; i < count[part]; ++i) {
                site[i] = likelihood_site(part, e, start[part] + i);
            }
            if (treefold_allreduce_ctx(ctx[part], site, &lnl[part][e]) != MPI_SUCCESS) {
                fprintf(stderr, "rank %d: evaluation %d: %s\n", rank, e, treefold_last_error());
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    }
    double* expected = malloc(sizeof(double) * LIKELIHOOD_EVALUATIONS);
    for (int part = 0; part < LIKELIHOOD_PARTITIONS; ++part) {
        failed |= likelihood_reference(MPI_COMM_WORLD, part, expected);
        int differ = 0;
        for (int e = 0; e < LIKELIHOOD_EVALUATIONS; ++e) {
            if (bits_of(lnl[part][e]) != bits_of(expected[e])) {
                if (differ++ == 0) {
                    fprintf(stderr, "rank %d: partition %d, evaluation %d: C API %a, C++ reducer %a\n", rank, part, e,
                            lnl[part][e], expected[e]);
                }
            }
        }
        failed |= differ != 0;
        if (rank == 0) {
            printf("partition %d: %d evaluations, last log-likelihood %.17g (%s)\n", part, LIKELIHOOD_EVALUATIONS,
                   lnl[part][LIKELIHOOD_EVALUATIONS - 1], differ == 0 ? "the C++ reducer's bits" : "DIFFERENT bits");
        }
        free(lnl[part]);
        treefold_context_destroy(&ctx[part]);
    }
    free(expected);
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
