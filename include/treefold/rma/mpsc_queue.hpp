#pragma once
/// A one-sided many-to-one message queue over MPI-3 RMA: each rank is the single consumer of
/// one receive queue that any number of producers fill concurrently. Memory per process is
/// constant in p: a double-buffered slot array and five 64-bit counters in one window.
///
/// Protocol (all counters live in the consumer's window; every access is an MPI atomic):
/// - R: bit 63 = the half being filled, bits 0..62 = next free slot offset in that half. A
///   producer reserves k slots with one MPI_Fetch_and_op(MPI_SUM, k) on R. Offsets past the
///   half's end mean the reservation failed; bits 32..62 are spare so that failed
///   over-reservations never carry into the half bit (half capacities are below 2^32 slots).
/// - S[h], F[h]: slots of half h written successfully / whose reservation failed. A producer
///   that fails adds k to F[h] and reports `full`; one that succeeds MPI_Puts its message,
///   flushes, then adds k to S[h].
/// - The consumer swaps halves with one MPI_Fetch_and_op(MPI_REPLACE) on R, writing the other
///   half with offset 0 and receiving the filled offset X of the old half, waits until
///   S[h] + F[h] == X (every reservation of the old half has finished), reads the messages in
///   slots [0, S[h]) (successful reservations are a prefix), resets S[h] and F[h], and returns
///   the messages ordered by (key, source), not by arrival.

#include "treefold/comm_view.hpp"

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
    std::vector<std::byte> payload;
};

/// Counters of this rank's queue activity since construction.
struct queue_counters {
    std::uint64_t pushed = 0;        ///< messages written into some consumer's queue
    std::uint64_t full = 0;          ///< reservations that failed because a half was full
    std::uint64_t drained = 0;       ///< half swaps done as consumer
    std::uint64_t delivered = 0;     ///< messages delivered to this rank as consumer
};

/// The queue. Construction and destruction are collective over the communicator (they
/// create and free the MPI window); push and drain are not.
class mpsc_queue {
public:
    /// Bytes of the header every message carries (key, source, length).
    static constexpr std::size_t header_bytes = 16;

    /// Creates every rank's queue: `slots_per_half` slots of `slot_bytes` bytes in each of the
    /// two halves. Throws std::invalid_argument (on every rank: the arguments are checked
    /// after agreeing on them) if they differ between ranks, slot_bytes is not a positive
    /// multiple of 8, or slots_per_half is 0 or 2^32 or more.
    mpsc_queue(comm_view comm, std::size_t slots_per_half, std::size_t slot_bytes = 64);
    ~mpsc_queue();
    mpsc_queue(const mpsc_queue&) = delete;
    mpsc_queue& operator=(const mpsc_queue&) = delete;

    /// Slots a message with `payload_bytes` bytes needs.
    std::size_t slots_for(std::size_t payload_bytes) const
    {
        return (header_bytes + payload_bytes + slot_bytes_ - 1) / slot_bytes_;
    }
    /// Largest payload a message can carry (it must fit in one half).
    std::size_t max_payload() const { return slots_per_half_ * slot_bytes_ - header_bytes; }

    /// One attempt to deliver a message to `consumer`'s queue. Returns false when the half being
    /// filled has no room (the reservation is released; try again after the consumer drains).
    /// Throws std::invalid_argument if the payload exceeds max_payload() or consumer is not a
    /// rank.
    bool try_push(int consumer, std::uint64_t key, std::span<const std::byte> payload);

    /// Delivers a message, retrying while the consumer's half is full; `progress` runs between
    /// attempts (a rank that is also a consumer must drain its own queue there, or two ranks
    /// that fill each other's queues wait for ever).
    void push(int consumer, std::uint64_t key, std::span<const std::byte> payload,
              const std::function<void()>& progress = {});

    /// Consumer: swaps halves and returns the messages of the half that was being filled, once
    /// every producer that reserved space in it has finished, ordered by (key, source).
    std::vector<message> drain();

    /// True when the window is a shared-memory one (every rank on one node: MPI_Win_allocate_shared),
    /// false for MPI_Win_allocate. Same protocol, same results.
    bool shared_memory() const { return shared_; }
    /// Bytes of window memory this rank exposes (constant in p).
    std::size_t window_bytes() const { return window_bytes_; }
    const queue_counters& counters() const { return counters_; }
    const boost::mpi::communicator& communicator() const { return comm_; }

private:
    MPI_Aint slot_disp(unsigned half, std::uint64_t slot) const;

    boost::mpi::communicator comm_;
    std::size_t slots_per_half_;
    std::size_t slot_bytes_;
    std::size_t window_bytes_ = 0;
    MPI_Win win_ = MPI_WIN_NULL;
    bool shared_ = false; // a shared-memory window (all ranks on one node)
    std::byte* base_ = nullptr;
    unsigned filling_ = 0; // the half producers fill now (only the consumer changes it)
    std::vector<std::byte> staging_;
    queue_counters counters_;
};

} // namespace treefold::rma
