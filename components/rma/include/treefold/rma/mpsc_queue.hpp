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

#include "treefold/config.hpp"
#include "treefold/rma/queue_base.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace treefold::rma {

/// The queue. Construction and destruction are collective over the communicator (they
/// create and free the MPI window); push and drain are not.
class mpsc_queue : public queue_base {
public:
    /// Creates every rank's queue: `slots_per_half` slots of `slot_bytes` bytes in each of the
    /// two halves. Throws std::invalid_argument (on every rank: the arguments are checked
    /// after agreeing on them) if they differ between ranks, slot_bytes is not a positive
    /// multiple of 8, or slots_per_half is 0 or 2^32 or more.
    mpsc_queue(comm_view comm, std::size_t slots_per_half, std::size_t slot_bytes = 64);
    /// Frees the MPI window: collective, like construction.
    ~mpsc_queue() override;

    /// One attempt to deliver a message to `consumer`'s queue. Returns false when the half being
    /// filled has no room (the reservation is released; try again after the consumer drains).
    /// Throws std::invalid_argument if the payload exceeds max_payload() or consumer is not a
    /// rank.
    bool try_push(int consumer, std::uint64_t key, std::span<const std::byte> payload) override;

    /// Consumer: swaps halves and returns the messages of the half that was being filled, once
    /// every producer that reserved space in it has finished, ordered by (key, source).
    std::vector<message> drain();

};

} // namespace treefold::rma
