#pragma once
/// The lock-based baseline of the one-sided many-to-one queue (the thesis's *rlock*, §6.2.2):
/// the same double-buffered slot array as rma::mpsc_queue, but a producer holds an exclusive
/// MPI_Win_lock on the consumer's window for the whole enqueue, so producers to one consumer
/// (and the consumer's swap) run one at a time. It exists to measure what mpsc_queue's
/// lock-free reservation buys under many producers (doc/performance.md, "The queue's
/// experiments"); use mpsc_queue in real code.
///
/// Protocol: word 0 of the consumer's window holds bit 63 = the half being filled and bits
/// 0..62 = the next free slot in it. A producer locks the consumer's window exclusively, reads
/// the word, and either finds no room (unlocks, reports `full`) or puts its message at that
/// slot, advances the word and unlocks. The consumer locks its own window, flips the half,
/// copies the filled slots out and unlocks, then unpacks the copy without holding the lock.

#include "treefold/config.hpp"
#include "treefold/rma/queue_base.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace treefold::rma {

/// The lock-based queue. Same sizes, messages, counters and window kinds as mpsc_queue;
/// construction and destruction are collective, push and drain are not.
class locked_queue : public queue_base {
public:
    /// Creates every rank's queue: two halves of `slots_per_half` slots of `slot_bytes` bytes.
    /// Throws std::invalid_argument on every rank if the sizes differ between ranks,
    /// slot_bytes is not a positive multiple of 8, or slots_per_half is 0 or 2^32 or more.
    locked_queue(comm_view comm, std::size_t slots_per_half, std::size_t slot_bytes = 64);

    /// One locked attempt to deliver a message to `consumer`'s queue. Returns false when the
    /// half being filled has no room. Throws std::invalid_argument if the payload exceeds
    /// max_payload() or consumer is not a rank.
    bool try_push(int consumer, std::uint64_t key, std::span<const std::byte> payload) override;

    /// Consumer: swaps halves under its own window's exclusive lock and returns the messages of
    /// the half that was being filled, ordered by (key, source).
    std::vector<message> drain();

};

} // namespace treefold::rma
