// The core's scheduled exchanges by name, inside the library (exchange::core_schedule).

#include "treefold/exchange/executor.hpp"
#include "treefold/exchange/registry.hpp"
#include "treefold/plan/generators.hpp"

#include <string>

namespace treefold::exchange {

plan::rank_schedule core_schedule(std::string_view name, const layout::block_layout& layout, int rank)
{
    const auto make = schedule_by_name<core_exchanges>(name, [name](const std::string& names) {
        return "treefold: '" + std::string(name) + "' is no core exchange that runs a schedule (" + names + ")";
    });
    return make(layout, rank);
}

} // namespace treefold::exchange
