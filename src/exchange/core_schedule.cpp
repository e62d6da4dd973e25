// The core's scheduled exchanges by name, inside the library (exchange::core_schedule).

#include "treefold/exchange/executor.hpp"
#include "treefold/exchange/registry.hpp"
#include "treefold/plan/generators.hpp"

#include <stdexcept>
#include <string>

namespace treefold::exchange {

plan::rank_schedule core_schedule(std::string_view name, const layout::block_layout& layout, int rank)
{
    plan::rank_schedule out;
    bool found = false;
    std::string names;
    for_each_exchange<core_exchanges>([&]<class E>(std::type_identity<E>) {
        if constexpr (plan::scheduled_exchange<E>) {
            names += (names.empty() ? "" : ", ") + std::string(E::name);
            if (!found && name == std::string_view(E::name)) {
                found = true;
                out = E::schedule(layout, rank);
            }
        }
    });
    if (!found) {
        throw std::invalid_argument("treefold: '" + std::string(name) + "' is no core exchange that runs a schedule (" +
                                    names + ")");
    }
    return out;
}

} // namespace treefold::exchange
