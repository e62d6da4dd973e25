#pragma once
/// Every exchange: the core's registry (exchange/registry.hpp) joined with the components'
/// exchanges, the model's modelled schedules and rma's one-sided exchange. Including this
/// header needs the model and rma components (treefold::model, treefold::rma); the CLI, the
/// benchmarks and the conformance tests use it.

#include "treefold/config.hpp"
#include "treefold/exchange/registry.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/model/schedules.hpp"
#include "treefold/rma/one_sided.hpp"

namespace treefold {

namespace exchange {
/// The model component's exchanges: "schedule_heuristic", "schedule_best", "schedule_best_sized".
using model_exchanges = exchange_list<scheduled<schedules::heuristic>, scheduled<schedules::best>,
                                      scheduled<schedules::best_sized>>;
/// The rma component's exchanges: "one_sided".
using rma_exchanges = exchange_list<one_sided>;
} // namespace exchange

/// The core's exchanges, then the model's, then the rma component's.
using all_exchanges = exchange::join_t<exchange::core_exchanges, exchange::model_exchanges, exchange::rma_exchanges>;

} // namespace treefold
