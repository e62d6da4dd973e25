// The same-bits matrix (same_bits_matrix.hpp) for the 8-ary tree whose result goes out through MPI_Bcast, and one_sided.
#include "same_bits_matrix.hpp"

#define TREEFOLD_SAME_BITS_GROUP dual8_one_sided
#include "same_bits_cases.hpp"
