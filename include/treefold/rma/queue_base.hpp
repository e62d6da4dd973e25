#pragma once
/// What the one-sided many-to-one queues (mpsc_queue, locked_queue) share: the delivered
/// message, the activity counters, and one rank's window of a double-buffered slot array
/// (64 bytes of counters, then two halves of `slots_per_half` slots of `slot_bytes` bytes).
/// The queues differ only in how producers reserve slots and how the consumer swaps halves.

#include "treefold/comm_view.hpp"
#include "treefold/config.hpp"

#include <boost/mpi/communicator.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace treefold::rma {

/// A delivered message.
struct message {
    int source = -1;          ///< the producer's rank
    std::uint64_t key = 0;    ///< the producer's key (delivery order)
    std::vector<std::byte> payload; ///< the bytes the producer pushed
};

/// Counters of this rank's queue activity since construction.
struct queue_counters {
    std::uint64_t pushed = 0;        ///< messages written into some consumer's queue
    std::uint64_t full = 0;          ///< reservations that failed because a half was full
    std::uint64_t drained = 0;       ///< half swaps done as consumer
    std::uint64_t delivered = 0;     ///< messages delivered to this rank as consumer
};

/// The sizes, window and counters of a queue; only the queues derive from it. Construction and
/// destruction are collective over the communicator (they create and free the MPI window).
class queue_base {
public:
    /// Bytes of the header every message carries (key, source, length).
    static constexpr std::size_t header_bytes = 16;

    queue_base(const queue_base&) = delete;
    queue_base& operator=(const queue_base&) = delete;

    /// Slots a message with `payload_bytes` bytes needs.
    std::size_t slots_for(std::size_t payload_bytes) const
    {
        return (header_bytes + payload_bytes + slot_bytes_ - 1) / slot_bytes_;
    }
    /// Largest payload a message can carry (it must fit in one half).
    std::size_t max_payload() const { return slots_per_half_ * slot_bytes_ - header_bytes; }

    /// True when the window is a shared-memory one (every rank on one node: MPI_Win_allocate_shared),
    /// false for MPI_Win_allocate. Same protocol, same results.
    bool shared_memory() const { return shared_; }
    /// Bytes of window memory this rank exposes (constant in p).
    std::size_t window_bytes() const { return window_bytes_; }
    /// This rank's activity since construction.
    const queue_counters& counters() const { return counters_; }
    /// The queue's own duplicate of the communicator it was built on.
    const boost::mpi::communicator& communicator() const { return comm_; }

protected:
    /// Agrees on the sizes and allocates the window with zeroed counters. Throws
    /// std::invalid_argument (on every rank alike) if the sizes differ between ranks,
    /// slot_bytes is not a positive multiple of 8, or slots_per_half is 0 or 2^32 or more.
    queue_base(comm_view comm, std::size_t slots_per_half, std::size_t slot_bytes);
    /// Frees the window (a derived queue closes its epochs first).
    ~queue_base();

    /// Displacement of `slot` of `half` in a window.
    MPI_Aint slot_disp(unsigned half, std::uint64_t slot) const;

    boost::mpi::communicator comm_;  ///< the queue's own duplicate
    std::size_t slots_per_half_;     ///< slots in each half
    std::size_t slot_bytes_;         ///< bytes per slot (a multiple of 8)
    std::size_t window_bytes_ = 0;   ///< header region plus both halves
    MPI_Win win_ = MPI_WIN_NULL;     ///< the window (no epoch opened by queue_base)
    bool shared_ = false;            ///< a shared-memory window (all ranks on one node)
    std::byte* base_ = nullptr;      ///< this rank's window memory
    unsigned filling_ = 0;           ///< the half producers fill now (only the consumer changes it)
    std::vector<std::byte> staging_; ///< one half's bytes: a message to put, or a half to unpack
    queue_counters counters_;        ///< this rank's activity
};

} // namespace treefold::rma
