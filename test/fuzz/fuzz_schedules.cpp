// The fuzzer's checks (fuzz_check.hpp) for the four schedule generators.
#include "fuzz_check.hpp"

using namespace treefold;

TREEFOLD_FUZZ_EXCHANGE(exchange::scheduled<exchange::schedules::recursive_doubling>);
TREEFOLD_FUZZ_EXCHANGE(exchange::scheduled<model::schedules::heuristic>);
TREEFOLD_FUZZ_EXCHANGE(exchange::scheduled<model::schedules::best>);
TREEFOLD_FUZZ_EXCHANGE(exchange::scheduled<model::schedules::best_sized>);
