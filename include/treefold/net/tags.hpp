#pragma once
/// Every tag treefold puts on a message, in one place. All of them travel on treefold's
/// private communicators (net/comm.hpp), except `ring`, which the bandwidth allreduces of
/// collective/allreduce.hpp use on the caller's communicator (they have no failure path).

#include "treefold/config.hpp"

namespace treefold::net::tag {

inline constexpr int values = 1;         ///< a payload of values (any count, any codec)
inline constexpr int failure = 2;        ///< an empty message: no values follow, a record does
inline constexpr int failure_record = 3; ///< the failure record itself (right after `failure`)
inline constexpr int self_copy = 4;      ///< C entry points: a rank copying a derived datatype to itself
inline constexpr int ring = 0x5cee;      ///< ring / Rabenseifner allreduce steps

/// The one-sided queue carries keys, not tags: a key's low byte is a tree level, and this
/// level marks a failure record in place of a node value.
inline constexpr unsigned queue_failure_level = 255;

} // namespace treefold::net::tag
