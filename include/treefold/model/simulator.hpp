#pragma once
/// A discrete-event simulator of allreduce schedules under the pipelining model.
///
/// It follows topology::rounds_of round by round. Every rank has its own clock. A rank that
/// multicasts k messages issues them one after
/// the other, α_r apart (message j leaves at clock + j·α_r); a message arrives α_p after it
/// leaves (plus optional random noise). A receiver handles arrivals in time order, at most
/// one per α_r, and cannot start before its own clock; its clock then becomes the later of
/// its last handled arrival and the end of its own sends. Ranks only wait for the messages
/// they need, so stages overlap where the data flow allows. Without noise a factor-f stage
/// of synchronised ranks takes exactly α_p + (f−1)·α_r (peers are addressed in rotated order,
/// so arrivals are spread), and factor-only schedules on p = (b+1)^k finish at
/// (α_p + b·α_r)·log_{b+1} p. Receivers serialise, so the model it never exceeds is the one
/// with receive_cost::conflicts.

#include "treefold/config.hpp"
#include "treefold/topology/schedule.hpp"
#include "treefold/model/pipelining.hpp"

#include <cstdint>

namespace treefold::model {

/// Optional noise: each message's transit gets an extra exponential delay with this mean.
struct noise {
    double mean = 0;        ///< mean extra delay per message (0: deterministic)
    std::uint64_t seed = 1; ///< random seed (same seed, same result)
};

/// What a simulated allreduce reports.
struct simulation {
    double time = 0;            ///< completion: the latest rank clock
    std::uint64_t messages = 0; ///< point-to-point messages sent
};

/// Simulates one allreduce with `s` over p ranks (throws std::invalid_argument unless
/// s.fits(p) and the parameters are valid).
simulation simulate(const topology::schedule& s, int p, const params& m, const noise& n = {});

} // namespace treefold::model
