// The same-bits matrix (same_bits_matrix.hpp) for the automatic exchange, first half: the
// double, float and integer sums and the data sets (the operators and serialized types:
// same_bits_automatic_operators.cpp). Its five candidates' plans made one file too costly.
#include "same_bits_matrix.hpp"

#define TREEFOLD_SAME_BITS_GROUP automatic
#define TREEFOLD_SAME_BITS_PART 1
#include "same_bits_cases.hpp"
