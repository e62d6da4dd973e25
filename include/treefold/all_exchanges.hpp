#pragma once
/// Every exchange: the core's registry (exchange/registry.hpp) joined with the components'
/// exchanges, the model's modelled schedules and rma's one-sided exchange. Including this
/// header needs the model and rma components (treefold::model, treefold::rma); the CLI, the
/// benchmarks and the conformance tests use it.

#include "treefold/config.hpp"
#include "treefold/exchange/registry.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/model/schedules.hpp"
#include "treefold/plan/generators.hpp"
#include "treefold/plan/schedule.hpp"
#include "treefold/rma/one_sided.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace treefold {

/// The model component's exchanges: "schedule_heuristic", "schedule_best", "schedule_best_sized".
using model_exchanges =
    exchange::exchange_list<exchange::scheduled<model::schedules::heuristic>, exchange::scheduled<model::schedules::best>,
                            exchange::scheduled<model::schedules::best_sized>>;
/// The rma component's exchanges: "one_sided".
using rma_exchanges = exchange::exchange_list<rma::one_sided>;

/// The core's exchanges, then the model's, then the rma component's.
using all_exchanges = exchange::join_t<exchange::core_exchanges, model_exchanges, rma_exchanges>;

/// The names of the exchanges that run a schedule (plan::scheduled_exchange: all but
/// `native` and `automatic`), in registry order.
inline std::vector<std::string_view> scheduled_exchange_names()
{
    std::vector<std::string_view> out;
    exchange::for_each_exchange<all_exchanges>([&]<class E>(std::type_identity<E>) {
        if constexpr (plan::scheduled_exchange<E>) {
            out.emplace_back(E::name);
        }
    });
    return out;
}

/// Every rank's schedule (index r: rank r) of the exchange called `name` over `layout`, as
/// the executor of each rank would run it for 8-byte values. Throws std::invalid_argument
/// naming the scheduled exchanges for any other name.
inline std::vector<plan::rank_schedule> schedules_of(std::string_view name, const layout::block_layout& layout)
{
    const auto make = exchange::schedule_by_name<all_exchanges>(name, [name](const std::string& names) {
        return "treefold: exchange '" + std::string(name) + "' runs no schedule (those that do: " + names + ")";
    });
    return plan::all_ranks(layout, make);
}

} // namespace treefold

