// The same-bits matrix (same_bits_matrix.hpp) for the inorder and truncated_fibonacci trees.
#include "same_bits_matrix.hpp"

#define TREEFOLD_SAME_BITS_GROUP inorder_truncated_fibonacci
#include "same_bits_cases.hpp"
