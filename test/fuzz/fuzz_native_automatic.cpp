// The fuzzer's checks (fuzz_check.hpp) for the native and automatic exchanges.
#include "fuzz_check.hpp"

using namespace treefold;

TREEFOLD_FUZZ_EXCHANGE(exchange::native);
TREEFOLD_FUZZ_EXCHANGE(exchange::automatic);
