#pragma once
/// The two communication patterns that move a result, each written once and generic over what
/// travels (a `channel`): the binomial broadcast of a result and the delivery of a result to
/// another root. (The collective component's walk of a tree position: collective/detail/walk.hpp.)
///
/// Failures: a rank that has failed, or learned of a failure, keeps receiving everything owed
/// to it and sends a failure wherever values were expected, so no peer waits and no message is
/// left behind. A rank keeps the first failure it knows of.

#include "treefold/config.hpp"
#include "treefold/error.hpp"

#include <concepts>
#include <cstddef>
#include <optional>
#include <span>

namespace treefold::net {

/// What a broadcast or a delivery moves: the unit receives from a rank into its storage (a
/// failure from that rank is returned) and sends its storage, or the failure, to a rank.
/// net::values_channel (transport.hpp) is the typed one; the C entry points have their own.
template <class C>
concept channel = requires(C& c, int rank, const maybe_failure& f) {
    { c.recv(rank) } -> std::same_as<maybe_failure>;
    c.send(rank, f);
};

/// Binomial broadcast from `root` over ranks 0..p-1 (rank `me` calls it). A rank that
/// already failed forwards its own failure.
template <channel C>
void broadcast(C& ch, int p, int me, int root, maybe_failure& failed)
{
    const int rel = (me - root + p) % p; // position relative to the root
    int mask = 1;
    while (mask < p) {
        if ((rel & mask) != 0) {
            const maybe_failure remote = ch.recv((rel - mask + root) % p);
            failed = failed ? failed : remote;
            break;
        }
        mask <<= 1;
    }
    // Children: positions rel + m for every power of two m below rel's lowest set bit.
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask < p) {
            ch.send((rel + mask + root) % p, failed);
        }
    }
}

/// Moves the result (or a failure) from `from` to `root`; nothing when they are the same.
template <channel C>
void deliver(C& ch, int me, int from, int root, maybe_failure& failed)
{
    if (from == root) {
        return;
    }
    if (me == from) {
        ch.send(root, failed);
    } else if (me == root) {
        const maybe_failure remote = ch.recv(from);
        failed = failed ? failed : remote;
    }
}

} // namespace treefold::net
