/* The bits of treefold_allreduce_c's sum (MPI_DOUBLE, MPI_SUM) of a .binpsllh file, printed by
 * rank 0 as `treefold sum` prints them ("tree sum bits    : %016X"), for the comparison of
 * builds against different MPI implementations (check_mpi_bits.sh). The N values are dealt
 * out in rank order, the first N mod p ranks one more; each rank reads only its block.
 *   mpirun -n P mpi_bits FILE
 *   mpi_bits --write-synthetic FILE N   (no MPI) writes N log-likelihood-like values, the
 *     same on every machine: magnitudes from 2^-8 to 2^7, so the order of the additions
 *     shows in the last bits.
 * Exit status 0, or 1 with a message on stderr. */
#include "treefold/treefold.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: a fixed sequence of 64-bit words from a counter. */
static uint64_t next_word(uint64_t* state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Writes and reads the file's little-endian words byte by byte, whatever the host's order. */
static void put_word(unsigned char* out, uint64_t w)
{
    for (int i = 0; i < 8; ++i) {
        out[i] = (unsigned char)(w >> (8 * i));
    }
}

static uint64_t get_word(const unsigned char* in)
{
    uint64_t w = 0;
    for (int i = 7; i >= 0; --i) {
        w = (w << 8) | in[i];
    }
    return w;
}

static int write_synthetic(const char* path, const char* count)
{
    char* end = NULL;
    const unsigned long long n = strtoull(count, &end, 10);
    FILE* f = fopen(path, "wb");
    if (*end != '\0' || n == 0 || f == NULL) {
        fprintf(stderr, "mpi_bits: cannot write %s values to '%s'\n", count, path);
        return 1;
    }
    unsigned char word[8];
    put_word(word, n);
    int ok = fwrite(word, 8, 1, f) == 1;
    uint64_t state = 2026;
    for (unsigned long long i = 0; ok && i < n; ++i) {
        const uint64_t w = next_word(&state);
        /* 53 random mantissa bits in [1, 2), negated, scaled by 2^(e - 8) for e in 0 .. 15 */
        double v = -(1.0 + (double)(w >> 11) * 0x1p-53);
        for (int e = (int)(w & 15u); e > 0; --e) {
            v *= 2.0;
        }
        v *= 0x1p-8;
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        put_word(word, bits);
        ok = fwrite(word, 8, 1, f) == 1;
    }
    ok = (fclose(f) == 0) && ok;
    if (!ok) {
        fprintf(stderr, "mpi_bits: writing '%s' failed\n", path);
    }
    return ok ? 0 : 1;
}

/* This rank's block of the file's values; NULL with a message when the file is unreadable. */
static double* read_block(const char* path, int rank, int size, int64_t* count)
{
    FILE* f = fopen(path, "rb");
    unsigned char word[8];
    if (f == NULL || fread(word, 8, 1, f) != 1) {
        fprintf(stderr, "mpi_bits: cannot read '%s'\n", path);
        if (f != NULL) {
            fclose(f);
        }
        return NULL;
    }
    const int64_t n = (int64_t)get_word(word);
    const int64_t base = n / size, extra = n % size;
    const int64_t start = rank * base + (rank < extra ? rank : extra);
    *count = base + (rank < extra ? 1 : 0);
    double* values = malloc((size_t)(*count > 0 ? *count : 1) * sizeof(double));
    int ok = values != NULL && fseek(f, (long)(8 + 8 * start), SEEK_SET) == 0;
    for (int64_t i = 0; ok && i < *count; ++i) {
        ok = fread(word, 8, 1, f) == 1;
        const uint64_t bits = get_word(word);
        memcpy(&values[i], &bits, sizeof bits);
    }
    fclose(f);
    if (!ok) {
        fprintf(stderr, "mpi_bits: '%s' is shorter than its count of %lld values\n", path, (long long)n);
        free(values);
        return NULL;
    }
    return values;
}

int main(int argc, char** argv)
{
    if (argc == 4 && strcmp(argv[1], "--write-synthetic") == 0) {
        return write_synthetic(argv[2], argv[3]);
    }
    if (argc != 2) {
        fprintf(stderr, "usage: mpirun -n P mpi_bits FILE | mpi_bits --write-synthetic FILE N\n");
        return 1;
    }
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t count = 0;
    double* local = read_block(argv[1], rank, size, &count);
    int readable = local != NULL, all_readable = 0;
    MPI_Allreduce(&readable, &all_readable, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int rc = 1;
    if (all_readable) {
        double total = 0.0;
        rc = treefold_allreduce_c(local, &total, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "mpi_bits: treefold_allreduce_c failed (%d)\n", rc);
        } else if (rank == 0) {
            uint64_t bits;
            memcpy(&bits, &total, sizeof bits);
            printf("tree sum bits    : %016llX\n", (unsigned long long)bits);
        }
    }
    free(local);
    MPI_Finalize();
    return rc == MPI_SUCCESS ? 0 : 1;
}
