/* The data of test/capi/likelihood_shape.c and of its C++ reference (likelihood_reference.cpp),
 * shared so both reduce the same values: per-site log-likelihoods of a phylogenetic search
 * (RAxML-NG's shape: partitions of sites split over the ranks in uneven blocks, new values
 * at every evaluation of the model). C99 and C++. */
#ifndef TREEFOLD_TEST_LIKELIHOOD_SHAPE_H
#define TREEFOLD_TEST_LIKELIHOOD_SHAPE_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { LIKELIHOOD_PARTITIONS = 2, LIKELIHOOD_EVALUATIONS = 10000 };

/** Sites of partition `part`. */
static inline int64_t likelihood_sites(int part) { return part == 0 ? 331 : 173; }

/** Rank r's block of partition `part` on p ranks: shares growing with the rank (1, 2, ..., p),
 * so the blocks are uneven and rank p-1 holds the most. */
static inline void likelihood_block(int part, int rank, int p, int64_t* start, int64_t* count)
{
    const int64_t n = likelihood_sites(part);
    const int64_t whole = (int64_t)p * (p + 1) / 2;
    const int64_t lo = n * ((int64_t)rank * (rank + 1) / 2) / whole;
    const int64_t hi = n * ((int64_t)(rank + 1) * (rank + 2) / 2) / whole;
    *start = lo;
    *count = hi - lo;
}

/** The log-likelihood of site `site` of partition `part` at evaluation `e`: negative values of
 * magnitudes from about 2^-6 to 2^4, so the sum's bits depend on the order of additions. */
static inline double likelihood_site(int part, int e, int64_t site)
{
    uint64_t h = ((uint64_t)part << 56) ^ ((uint64_t)e << 24) ^ (uint64_t)site;
    h += 0x9e3779b97f4a7c15ULL;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    h ^= h >> 31;
    const double unit = (double)(h >> 11) / 9007199254740992.0; /* [0, 1) */
    const double scale = (double)((uint64_t)1 << (h & 7)) / 64.0; /* 2^-6 .. 2^1 */
    return -(0.5 + unit) * scale * 8.0;
}

/** The C++ reference: every evaluation of partition `part` reduced with
 * treefold::reducer<double> over this rank's block, into out[0 .. LIKELIHOOD_EVALUATIONS).
 * Returns 0, or 1 after printing what went wrong. */
int likelihood_reference(MPI_Comm comm, int part, double* out);

#ifdef __cplusplus
}
#endif

#endif
