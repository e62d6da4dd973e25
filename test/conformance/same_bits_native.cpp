// The same-bits matrix (same_bits_matrix.hpp) for the native exchange (the MPI library's own
// MPI_Allreduce and MPI_Reduce).
#include "same_bits_matrix.hpp"

#define TREEFOLD_SAME_BITS_GROUP native
#include "same_bits_cases.hpp"
