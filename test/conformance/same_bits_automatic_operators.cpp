// The same-bits matrix (same_bits_matrix.hpp) for the automatic exchange, second half: the
// operator and serialized-type cases (the sums and data sets: same_bits_automatic_sums.cpp).
#include "same_bits_matrix.hpp"

#define TREEFOLD_SAME_BITS_GROUP automatic
#define TREEFOLD_SAME_BITS_PART 2
#include "same_bits_cases.hpp"
