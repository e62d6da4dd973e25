// model::schedules::best_sized: the size-aware model's search, compiled once here so that
// exchange/schedule.hpp (and with it reducer.hpp, through automatic) includes no model.
#include "treefold/model/schedules.hpp"

namespace treefold::model::schedules {

topology::schedule best_sized::make(int p, std::uint64_t bytes)
{
    return model::best(p, run_size_params(), bytes);
}

} // namespace treefold::model::schedules
