// The same-bits matrix (same_bits_matrix.hpp) for the best and best_sized schedules.
#include "same_bits_matrix.hpp"

#define TREEFOLD_SAME_BITS_GROUP schedule_best_best_sized
#include "same_bits_cases.hpp"
