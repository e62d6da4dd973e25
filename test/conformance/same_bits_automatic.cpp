// The same-bits matrix (same_bits_matrix.hpp) for the automatic exchange.
#include "same_bits_matrix.hpp"

#define TREEFOLD_SAME_BITS_GROUP automatic
#include "same_bits_cases.hpp"
