#pragma once
/// The three communication patterns every rank-ordered tree call is made of, each written
/// once and generic over what travels (a `channel`): the walk of one position of a reduction
/// tree, the binomial broadcast of a result, and the delivery of a result to another root.
///
/// Failures: a rank that has failed, or learned of a failure, keeps receiving everything owed
/// to it and sends a failure wherever values were expected, so no peer waits and no message is
/// left behind. A rank keeps the first failure it knows of.

#include "treefold/config.hpp"
#include "treefold/error.hpp"
#include "treefold/topology/tree_shape.hpp"

#include <concepts>
#include <cstddef>
#include <optional>
#include <span>

namespace treefold::net {

/// What a broadcast or a delivery moves: the unit receives from a rank into its storage (a
/// failure from that rank is returned) and sends its storage, or the failure, to a rank.
/// net::values_channel (transport.hpp) is the typed one; the C entry points have their own.
template <class C>
concept channel = requires(C& c, int rank, const std::optional<failure>& f) {
    { c.recv(rank) } -> std::same_as<std::optional<failure>>;
    c.send(rank, f);
};

/// Binomial broadcast from `root` over ranks 0..p-1 (rank `me` calls it). A rank that
/// already failed forwards its own failure.
template <channel C>
void broadcast(C& ch, int p, int me, int root, std::optional<failure>& failed)
{
    const int rel = (me - root + p) % p; // position relative to the root
    int mask = 1;
    while (mask < p) {
        if ((rel & mask) != 0) {
            const std::optional<failure> remote = ch.recv((rel - mask + root) % p);
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
void deliver(C& ch, int me, int from, int root, std::optional<failure>& failed)
{
    if (from == root) {
        return;
    }
    if (me == from) {
        ch.send(root, failed);
    } else if (me == root) {
        const std::optional<failure> remote = ch.recv(from);
        failed = failed ? failed : remote;
    }
}

/// One position's part of a rank-ordered tree reduction: its pieces (the children whose
/// subtrees precede it, itself, the children after it) in position order, or in reverse when
/// `from_right`. For child k, `take(k)` receives its message (always, even after a failure)
/// and returns the failure it carried, if any; while nothing has failed, `combine(piece,
/// failed)` folds piece k, or this position's own value for piece -1, into the accumulator
/// (setting `failed` if that throws). Sending the result to the parent is the caller's.
template <class Take, class Combine>
void walk_subtree(std::span<const topology::tree_child> children, int me, bool from_right,
                  std::optional<failure>& failed, Take&& take, Combine&& combine)
{
    std::size_t before = 0; // children whose subtrees precede this position
    while (before < children.size() && children[before].subtree_end <= me) {
        ++before;
    }
    const std::size_t pieces = children.size() + 1;
    for (std::size_t step = 0; step < pieces; ++step) {
        const std::size_t k = from_right ? pieces - 1 - step : step;
        const int piece = k < before ? static_cast<int>(k) : k == before ? -1 : static_cast<int>(k - 1);
        if (piece >= 0) {
            if (const std::optional<failure> remote = take(static_cast<std::size_t>(piece))) {
                failed = failed ? failed : remote;
                continue;
            }
        }
        if (!failed) {
            combine(piece, failed);
        }
    }
}

} // namespace treefold::net
