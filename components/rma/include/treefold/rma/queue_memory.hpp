#pragma once
/// The rma component's cost model: memory per process of a many-to-one receive queue against per-peer buffers, and the peer
/// counts after which one shared queue saves memory: the thesis's Eq. 6.1 and 6.2
/// (seed 003, §6.4.3). A shared queue (mpsc_queue, locked_queue) costs a constant buffer; a
/// per-peer scheme (Cray MPI's smsg, Open MPI's per-peer eager buffers) costs a fixed amount
/// per communicating peer; a per-node scheme (msgq) costs a fixed amount per peer node.

#include "treefold/config.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace treefold::rma {

/// Window bytes of one rank's double-buffered queue: `header` bytes of counters, then two
/// halves of `slots_per_half` slots of `slot_bytes` (mpsc_queue::window_bytes()).
constexpr std::size_t queue_buffer_bytes(std::size_t slots_per_half, std::size_t slot_bytes, std::size_t header = 64)
{
    return header + 2 * slots_per_half * slot_bytes;
}

/// Bytes a per-peer scheme spends on `peers` peers at `usage_per_peer` bytes each.
constexpr double per_peer_bytes(double peers, double usage_per_peer) { return peers * usage_per_peer; }

/// Bytes a per-node scheme spends on `peers` peers, `per_node` of them per node, at
/// `usage_per_node` bytes per peer node: ceil(peers / per_node) nodes.
inline double per_node_bytes(double peers, double usage_per_node, double per_node)
{
    return std::ceil(peers / per_node) * usage_per_node;
}

namespace detail {
inline void require_positive(double v, const char* what)
{
    if (!(v > 0.0)) {
        throw std::invalid_argument(std::string("treefold: queue memory model: ") + what + " must be positive");
    }
}
} // namespace detail

/// Eq. 6.1 as printed: buffer_size / usage_per_process, the peer count at which the per-peer
/// scheme's memory equals the shared buffer. Throws std::invalid_argument unless both are positive.
inline double eq61_threshold(double buffer_bytes, double usage_per_peer)
{
    detail::require_positive(buffer_bytes, "the buffer size");
    detail::require_positive(usage_per_peer, "the per-peer usage");
    return buffer_bytes / usage_per_peer;
}

/// Eq. 6.2 read with a ceiling: ceil(buffer_size / usage_per_node) * processes_per_node + 1.
/// Throws std::invalid_argument unless all three are positive.
inline double eq62_threshold(double buffer_bytes, double usage_per_node, double per_node)
{
    detail::require_positive(buffer_bytes, "the buffer size");
    detail::require_positive(usage_per_node, "the per-node usage");
    detail::require_positive(per_node, "the processes per node");
    return std::ceil(buffer_bytes / usage_per_node) * per_node + 1.0;
}

/// The smallest peer count at which the per-peer scheme needs strictly more memory than the
/// shared buffer: floor(buffer / usage) + 1 (Eq. 6.1 rounded to the first saving count).
inline double first_saving_per_peer(double buffer_bytes, double usage_per_peer)
{
    return std::floor(eq61_threshold(buffer_bytes, usage_per_peer)) + 1.0;
}

/// The smallest peer count at which the per-node scheme needs strictly more memory than the
/// shared buffer: floor(buffer / usage_per_node) * per_node + 1. It equals Eq. 6.2 when the
/// buffer is a whole number of node mailboxes and is one node's worth of peers lower otherwise.
inline double first_saving_per_node(double buffer_bytes, double usage_per_node, double per_node)
{
    eq62_threshold(buffer_bytes, usage_per_node, per_node); // the same checks
    return std::floor(buffer_bytes / usage_per_node) * per_node + 1.0;
}

} // namespace treefold::rma
