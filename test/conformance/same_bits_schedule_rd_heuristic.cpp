// The same-bits matrix (same_bits_matrix.hpp) for the recursive doubling and heuristic schedules.
#include "same_bits_matrix.hpp"

#define TREEFOLD_SAME_BITS_GROUP schedule_rd_heuristic
#include "same_bits_cases.hpp"
