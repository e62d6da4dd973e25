#pragma once
/// The schedule generators planned by the cost model (model/pipelining.hpp) for
/// exchange::scheduled: treefold's heuristic and the least modelled time.

#include "treefold/config.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/model/pipelining.hpp"
#include "treefold/topology/schedule.hpp"

namespace treefold::exchange::schedules {

/// The parameters the generators below plan with: α_p/α_r = 0.88/0.38, and receive conflicts
/// charged — a rank takes its messages one at a time, and without that charge the model
/// would merge about half the ranks into the first stage for free (pmerge with R ≈ p/2).
inline constexpr model::params run_params{0.88, 0.38, model::receive_cost::conflicts};
/// treefold's model heuristic with run_params.
struct heuristic {
    static constexpr const char* name = "heuristic";
    static topology::schedule make(int p) { return model::heuristic(p, run_params); }
};
/// The least modelled time with run_params.
struct best {
    static constexpr const char* name = "best";
    static topology::schedule make(int p) { return model::best(p, run_params); }
};

} // namespace treefold::exchange::schedules
