/* treefold_dot and treefold_dots from C99: for several N and ragged rank-order splits, the
 * dot has the bits of treefold_allreduce (MPI_DOUBLE, MPI_SUM) of the stored products (and so
 * the same bits for every p), treefold_dots' k results those of k separate calls, and
 * argument errors give the same error class on every rank. */
#include <treefold/treefold.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int rank = 0;

static void check(int ok, const char* what, long n)
{
    if (!ok) {
        fprintf(stderr, "test_c_dot: rank %d, N = %ld: %s (%s)\n", rank, n, what, treefold_last_error());
        ++failures;
    }
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* A value of global index i in array `which`: varied signs and exponents (so the order of
 * the sum shows in the last bits), the same on every p. */
static double value(int64_t i, int which)
{
    uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ULL + (uint64_t)which * 0xD1B54A32D192ED03ULL;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    const double m = (double)(h >> 11) / 9007199254740992.0; /* [0, 1) */
    const int e = (int)(h % 40) - 20;
    double v = (h & 1) ? -m : m;
    for (int j = 0; j < e; ++j) {
        v *= 2.0;
    }
    for (int j = 0; j > e; --j) {
        v *= 0.5;
    }
    return v;
}

int main(int argc, char** argv)
{
    int size = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const long sizes[] = {0, 1, 7, 100, 1000, 4099};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        for (int ragged = 0; ragged < 2; ++ragged) {
            const int64_t n = sizes[s];
            /* Even split, or ragged: rank r's share grows with r and rank 0 holds none. */
            int64_t start = 0, count = 0, weights = 0;
            for (int r = 0; r < size; ++r) {
                weights += ragged ? r : 1;
            }
            for (int r = 0, acc = 0; r <= rank; ++r) {
                const int64_t lo = weights > 0 ? n * acc / weights : (r == 0 ? 0 : n);
                acc += ragged ? r : 1;
                const int64_t hi = weights > 0 ? n * acc / weights : n;
                start = lo;
                count = hi - lo;
            }
            double* a[4];
            for (int c = 0; c < 4; ++c) {
                a[c] = (double*)malloc((size_t)(count > 0 ? count : 1) * sizeof(double));
                for (int64_t i = 0; i < count; ++i) {
                    a[c][i] = value(start + i, c);
                }
            }
            double* prod = (double*)malloc((size_t)(count > 0 ? count : 1) * sizeof(double));
            for (int64_t i = 0; i < count; ++i) {
                prod[i] = a[0][i] * a[1][i];
            }
            double dot = -1.0, ref = -1.0;
            check(treefold_dot(a[0], a[1], count, &dot, MPI_COMM_WORLD) == MPI_SUCCESS, "treefold_dot", n);
            check(treefold_allreduce_c(prod, &ref, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
                  "allreduce of the products", n);
            check(same_bits(dot, ref), "dot differs from the reduction of the stored products", n);
            if (n == 0) {
                check(same_bits(dot, 0.0), "N = 0 gives +0.0", n);
            }
            /* k at once against k separate calls: dots (x0.x1, x2.x3), a sum of x2, x1.x1. */
            double single[4], sum2 = 0.0;
            check(treefold_dot(a[2], a[3], count, &single[1], MPI_COMM_WORLD) == MPI_SUCCESS, "dot 2", n);
            check(treefold_allreduce_c(a[2], &sum2, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
                  "sum 2", n);
            check(treefold_dot(a[1], a[1], count, &single[3], MPI_COMM_WORLD) == MPI_SUCCESS, "dot 3", n);
            single[0] = dot;
            single[2] = sum2;
            const double* xs[4] = {a[0], a[2], a[2], a[1]};
            const double* ys[4] = {a[1], a[3], NULL, a[1]};
            for (int k = 1; k <= TREEFOLD_DOTS_MAX; ++k) {
                double got[4] = {-1.0, -1.0, -1.0, -1.0};
                check(treefold_dots(k, xs, ys, count, got, MPI_COMM_WORLD) == MPI_SUCCESS, "treefold_dots", n);
                for (int c = 0; c < k; ++c) {
                    check(same_bits(got[c], single[c]), "a treefold_dots column differs from its own call", n);
                }
            }
            /* y NULL: every column a plain sum. */
            double sums[2] = {-1.0, -1.0};
            check(treefold_dots(2, xs + 1, NULL, count, sums, MPI_COMM_WORLD) == MPI_SUCCESS, "dots of sums", n);
            check(same_bits(sums[0], sum2) && same_bits(sums[1], sum2), "NULL y: sums", n);
            for (int c = 0; c < 4; ++c) {
                free(a[c]);
            }
            free(prod);
        }
    }

    /* Errors on one rank are errors on every rank, and a good call works afterwards. */
    const int last = size - 1;
    double x[3] = {1.0, 2.0, 3.0}, r = 0.0, rs[5];
    const double* xs[5] = {x, x, x, x, x};
    check(treefold_dot(x, x, 3, &r, MPI_COMM_WORLD) == MPI_SUCCESS && r == 14.0 * size, "plain dot", 3);
    check(treefold_dot(x, x, rank == last ? -1 : 3, &r, MPI_COMM_WORLD) == MPI_ERR_COUNT, "negative count", -1);
    check(treefold_dot(x, rank == last ? NULL : x, 3, &r, MPI_COMM_WORLD) == MPI_ERR_BUFFER, "NULL y", 3);
    check(treefold_dot(x, x, 3, rank == 0 ? NULL : &r, MPI_COMM_WORLD) == MPI_ERR_BUFFER, "NULL result", 3);
    check(treefold_dot(NULL, NULL, 0, &r, MPI_COMM_WORLD) == MPI_SUCCESS && r == 0.0, "N = 0 with NULL", 0);
    /* the kept plan of N = 0 (no values on any rank) still reports one rank's NULL result everywhere */
    check(treefold_dot(NULL, NULL, 0, rank == last ? NULL : &r, MPI_COMM_WORLD) == MPI_ERR_BUFFER, "N = 0, NULL result", 0);
    check(treefold_dots(rank == last ? 0 : 2, xs, NULL, 3, rs, MPI_COMM_WORLD) == MPI_ERR_ARG, "k = 0", 3);
    check(treefold_dots(TREEFOLD_DOTS_MAX + 1, xs, NULL, 3, rs, MPI_COMM_WORLD) == MPI_ERR_ARG, "k too large", 3);
    check(treefold_dots(2, rank == last ? NULL : xs, NULL, 3, rs, MPI_COMM_WORLD) == MPI_ERR_BUFFER, "NULL x", 3);
    if (size > 1) {
        check(treefold_dots(rank == last ? 3 : 2, xs, NULL, 3, rs, MPI_COMM_WORLD) == MPI_ERR_ARG, "different k", 3);
    }
    check(treefold_dot(x, x, 3, &r, MPI_COMM_NULL) == MPI_ERR_COMM, "MPI_COMM_NULL", 3);
    check(treefold_dots(2, xs, NULL, 3, rs, MPI_COMM_WORLD) == MPI_SUCCESS && rs[0] == 6.0 * size &&
              rs[1] == 6.0 * size,
          "dots after the errors", 3);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("test_c_dot: p = %d, %s\n", size, all == 0 ? "passed" : "FAILED");
    }
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
