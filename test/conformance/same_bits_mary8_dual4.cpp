// The same-bits matrix (same_bits_matrix.hpp) for the 8-ary tree and the 4-ary tree whose result goes out through MPI_Bcast.
#include "same_bits_matrix.hpp"

#define TREEFOLD_SAME_BITS_GROUP mary8_dual4
#include "same_bits_cases.hpp"
