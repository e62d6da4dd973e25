// The same-bits matrix (same_bits_matrix.hpp) for the fibonacci and binary trees.
#include "same_bits_matrix.hpp"

#define TREEFOLD_SAME_BITS_GROUP fibonacci_binary
#include "same_bits_cases.hpp"
