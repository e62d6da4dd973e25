// The fuzzer's checks (fuzz_check.hpp) for the direct exchange and the binomial, fibonacci,
// binary, inorder and truncated_fibonacci trees.
#include "fuzz_check.hpp"

using namespace treefold;

TREEFOLD_FUZZ_EXCHANGE(exchange::direct);
TREEFOLD_FUZZ_EXCHANGE(exchange::tree<topology::binomial>);
TREEFOLD_FUZZ_EXCHANGE(exchange::tree<topology::fibonacci>);
TREEFOLD_FUZZ_EXCHANGE(exchange::tree<topology::binary>);
TREEFOLD_FUZZ_EXCHANGE(exchange::tree<topology::inorder>);
TREEFOLD_FUZZ_EXCHANGE(exchange::tree<topology::truncated_fibonacci>);
