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
#include <functional>
#include <span>
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

    /// One attempt to deliver a message to `consumer`'s queue; false when the half being filled
    /// has no room. Throws std::invalid_argument if the payload exceeds max_payload() or
    /// consumer is not a rank.
    virtual bool try_push(int consumer, std::uint64_t key, std::span<const std::byte> payload) = 0;

    /// Delivers a message, retrying while the consumer's half is full; `progress` runs between
    /// attempts (a rank that is also a consumer must drain its own queue there, or two ranks
    /// that fill each other's queues wait for ever).
    void push(int consumer, std::uint64_t key, std::span<const std::byte> payload,
              const std::function<void()>& progress = {});

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
    virtual ~queue_base();

    /// Displacement of `slot` of `half` in a window.
    MPI_Aint slot_disp(unsigned half, std::uint64_t slot) const;

    /// A consumer's swap: the half producers filled until now, and the word (bit 63 = the
    /// other half, offset 0) that sends them to the other one.
    struct swap {
        unsigned filled;     ///< the half to read
        std::uint64_t word;  ///< the new value of the reservation word
    };
    /// Flips filling_ and returns the swap to make.
    swap next_swap();

    /// Throws std::invalid_argument when `consumer` is not a rank or `payload` exceeds
    /// max_payload(); otherwise returns the slots the message needs (slots_for).
    std::uint64_t check_push(int consumer, std::span<const std::byte> payload) const;
    /// Writes this rank's header and `payload` back to back at the front of staging_; returns
    /// the bytes used.
    int stage(std::uint64_t key, std::span<const std::byte> payload);
    /// The messages in the first `slots` slots at `bytes` (written back to back, each header
    /// first, slots_for apart), ordered by (key, source): delivery never depends on arrival.
    std::vector<message> unpack(const std::byte* bytes, std::uint64_t slots) const;

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
