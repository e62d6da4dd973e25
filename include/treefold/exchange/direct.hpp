#pragma once
/// The direct exchange: every outbound subtree root (a right child whose parent starts before
/// the rank's block) goes to the owner of its parent, in point-to-point messages. The
/// schedule is plan::direct's (plan/generators.hpp): a send buffer holds up to 4 values per
/// message and is flushed when the target changes, before a local node of more than 64
/// elements is computed, and before any receive. The owner of index 0 ends with the root.

#include "treefold/config.hpp"
#include "treefold/exchange/generated_plan.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/plan/generators.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstddef>

namespace treefold::exchange {

/// Exchange policy: point-to-point messages of outbound subtree roots (see file comment).
struct direct {
    /// The exchange's name (the C API's "exchange" option).
    static constexpr const char* name = "direct";
    /// Values per message at most.
    static constexpr std::size_t buffer_values = treefold::plan::direct_buffering{}.values_per_message;
    /// Local nodes larger than this flush the send buffer before they are computed.
    static constexpr index_tree::index_t flush_before_elements =
        treefold::plan::direct_buffering{}.flush_before_elements;

    /// This rank's schedule (plan::direct): no communication.
    static treefold::plan::rank_schedule schedule(const layout::block_layout& layout, int rank)
    {
        return treefold::plan::direct(layout, rank);
    }

    /// The executor running this rank's schedule (see exchange/executor.hpp).
    template <class T>
    using plan = generated_plan<direct, T>;
};

} // namespace treefold::exchange
