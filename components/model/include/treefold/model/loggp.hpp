#pragma once
/// LogGP parameters with local arithmetic rates: the simulator's LogGP network
/// (model/task_graph.hpp) and the dsop component's cost model (dsop/cost.hpp) read them.

#include "treefold/config.hpp"

namespace treefold::model {

/// LogGP parameters and the local arithmetic rates, all in seconds.
struct loggp {
    double L = 0;     ///< latency of one message
    double o = 0;     ///< send plus receive overhead of one message
    double G = 0;     ///< gap per byte (inverse bandwidth)
    double t_add = 0; ///< one floating-point addition
    double t_mul = 0; ///< one floating-point multiplication
    double bytes = 8; ///< bytes per matrix or vector element
};

} // namespace treefold::model
