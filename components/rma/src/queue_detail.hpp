#pragma once
// Internal to components/rma/src: the one-sided queues' helpers — errors, the message header on the
// wire, the window's reservation word and header region.

#include "treefold/rma/queue_base.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace treefold::rma::detail {

/// What precedes every payload in a slot.
struct wire_header {
    std::uint64_t key;
    std::int32_t source;
    std::uint32_t length;
};

/// The reservation word: bit 63 = the half producers fill, bits 0..62 = the next free slot.
constexpr std::uint64_t half_bit = std::uint64_t{1} << 63;
/// The offset bits of the reservation word.
constexpr std::uint64_t offset_mask = half_bit - 1;

/// Bytes before the first slot: the counters (at most eight 64-bit words).
constexpr MPI_Aint header_region = 64;

/// Throws std::runtime_error naming `what` unless rc is MPI_SUCCESS.
void check(int rc, const char* what);

/// One MPI_Fetch_and_op on a 64-bit word of `target`'s window, completed (flushed); returns the
/// word's old value. The caller holds a passive-target epoch on the window.
std::uint64_t fetch_op(MPI_Win win, int target, MPI_Aint disp, std::uint64_t operand, MPI_Op op);

} // namespace treefold::rma::detail
