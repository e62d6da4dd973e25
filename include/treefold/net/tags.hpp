#pragma once
/// Every tag treefold puts on a message, in one place. All of them travel on treefold's
/// private communicators (net/comm.hpp), except `ring`, which the bandwidth allreduces of
/// collective/allreduce.hpp use on the caller's communicator (they have no failure path).
///
/// The framing's tags carry the call they belong to: kind in the low two bits, the call's
/// sequence number (modulo call_span) above, so a message one call left behind (only an
/// erroneous program, such as ranks passing different roots, leaves one) is never taken by
/// a later call (net/transport.hpp discards it).

#include <cstdint>

#include "treefold/config.hpp"

namespace treefold::net::tag {

inline constexpr int values = 1;         ///< kind: a payload of values (any count, any codec)
inline constexpr int failure = 2;        ///< kind: an empty message: no values follow, a record does
inline constexpr int failure_record = 3; ///< kind: the failure record itself (right after `failure`)
inline constexpr int self_copy = 0;      ///< C entry points: a rank copying a derived datatype to itself
inline constexpr int ring = 0x5cee;      ///< ring / Rabenseifner allreduce steps

/// Call numbers a tag tells apart: the tags stay below 2^14, within MPI's guaranteed 32767.
inline constexpr std::uint32_t call_span = 4096;

/// The tag of a message of `kind` in call number `call`.
constexpr int of_call(int kind, std::uint32_t call)
{
    return static_cast<int>(call % call_span) << 2 | kind;
}

/// The kind of a framing tag.
constexpr int kind_of(int t) { return t & 3; }

/// Whether a message tagged `t` belongs to call `call` (0), an earlier call (< 0) or a later
/// one (> 0): the distance modulo call_span, half of the span each way.
constexpr int call_order(int t, std::uint32_t call)
{
    const std::uint32_t d = (static_cast<std::uint32_t>(t >> 2) - call) % call_span;
    return d == 0 ? 0 : d < call_span / 2 ? 1 : -1;
}

/// The one-sided queue carries keys, not tags: a key's low byte is a tree level, and this
/// one stands for an empty rank's report to the finisher (a message with no node).
inline constexpr unsigned queue_report_level = 254;

} // namespace treefold::net::tag
