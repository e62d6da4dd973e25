/* A C user's program: the sum of 1/i over i = 1..1000 spread over the ranks, with treefold's
 * reproducible allreduce in place of the usual local sum + MPI_Allreduce. Built by
 * test/consumer/check.cmake with the README's link line alone:
 *   mpicc allreduce.c $(pkg-config --cflags --libs treefold)  */
#include <treefold/treefold.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv)
{
    int rank = 0, size = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 1000;
    const int begin = (int)((long long)n * rank / size), end = (int)((long long)n * (rank + 1) / size);
    double* x = malloc(sizeof(double) * (size_t)(end - begin + 1));
    for (int i = begin; i < end; ++i) {
        x[i - begin] = 1.0 / (double)(i + 1);
    }
    /* Was:  double local = 0; for (...) local += x[i];
     *       MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);  */
    double total = 0;
    const int rc = treefold_allreduce(x, &total, end - begin, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "treefold_allreduce: %s\n", treefold_last_error());
    }
    if (rank == 0) {
        printf("c consumer: sum of 1/i for i=1..1000 = %.17g\n", total);
    }
    free(x);
    MPI_Finalize();
    return rc == MPI_SUCCESS && total > 7.48 && total < 7.49 ? 0 : 1;
}
