// The same-bits matrix (same_bits_matrix.hpp) for the truncated_binary and 4-ary trees.
#include "same_bits_matrix.hpp"

#define TREEFOLD_SAME_BITS_GROUP truncated_binary_mary4
#include "same_bits_cases.hpp"
