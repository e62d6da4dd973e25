#pragma once
/// The schedule generators planned by the cost model (model/pipelining.hpp) for
/// exchange::scheduled: treefold's heuristic and the least modelled time, the latter also by
/// the size of the frontier messages (model/size_model.hpp).

#include "treefold/config.hpp"
#include "treefold/model/pipelining.hpp"
#include "treefold/model/size_model.hpp"
#include "treefold/topology/schedule.hpp"

#include <cstdint>

namespace treefold::model::schedules {

/// The parameters the generators below plan with: the thesis's α_p and α_r, and receive conflicts
/// charged — a rank takes its messages one at a time, and without that charge the model
/// would merge about half the ranks into the first stage for free (pmerge with R ≈ p/2).
inline constexpr model::params run_params{model::thesis_alpha_p, model::thesis_alpha_r,
                                          model::receive_cost::conflicts};
/// treefold's model heuristic with run_params.
struct heuristic {
    /// The generator's name (the exchange is "schedule_heuristic").
    static constexpr const char* name = "heuristic";
    /// model::heuristic(p, run_params).
    static topology::schedule make(int p) { return model::heuristic(p, run_params); }
};
/// The least modelled time with run_params.
struct best {
    /// The generator's name (the exchange is "schedule_best").
    static constexpr const char* name = "best";
    /// model::best(p, run_params).
    static topology::schedule make(int p) { return model::best(p, run_params); }
};

/// The size-aware model fitted on a 2-core Open MPI 4.1 shared-memory machine
/// (schedule_fit --sizes, p = 2, rounded; doc/performance.md), with receive conflicts
/// charged as in run_params: α_p 0.3 us, α_r 0.15 us, β 4e-5 us/B; above the 4032-byte eager
/// limit +0.45 us latency, +1.8 us and +4e-5 us/B per message.
inline model::size_params run_size_params()
{
    model::size_params m;
    m.base = {0.3, 0.15, model::receive_cost::conflicts};
    m.beta = 4e-5;
    m.eager_limit = 4032;
    m.rendezvous_p = 0.45;
    m.rendezvous_r = 1.8;
    m.rendezvous_beta = 4e-5;
    return m;
}
/// The least time the size-aware model (run_size_params) predicts for frontier messages of
/// `bytes`; make() is compiled into the model component's library.
struct best_sized {
    /// The generator's name (the exchange is "schedule_best_sized").
    static constexpr const char* name = "best_sized";
    /// The schedule for 8-byte messages.
    static topology::schedule make(int p) { return make(p, 8); }
    /// The schedule for messages of `bytes` (throws std::invalid_argument for p < 1).
    static topology::schedule make(int p, std::uint64_t bytes);
};
} // namespace treefold::model::schedules
