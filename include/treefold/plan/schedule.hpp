#pragma once
/// One rank's part in one exchange, as data: which maximal nodes it computes, which messages
/// it receives and sends (with the frontier nodes each carries), and in which order it merges
/// them. A generator (plan/generators.hpp, compiled into the library) makes it from the
/// layout, p, the rank and the exchange's parameters; one typed executor
/// (exchange/executor.hpp) runs any of them, and the counters, the cost model, the simulator
/// and the CLI read the same schedules. No MPI here.
///
/// The executor holds one frontier (the *stack*) and runs the steps in order:
///
///     local k      computes local[k] with the kernel and pushes it onto the stack
///     compute k    computes local[k] into slot k (pushed later by push_local k)
///     push_local k pushes slot k
///     post m       posts the receive of message m (raw payloads; others are taken by probe)
///     take m       receives message m and pushes its values (its nodes, in order)
///     receive m    receives message m (its values are pushed one by one by push_in)
///     push_in j    pushes the received value of node j (an index into `nodes`)
///     send m       sends the stack's values (exactly message m's nodes) as message m
///     pop_out m    moves the stack's top node (the next node of message m) into m's buffer
///     flush m      sends message m's buffer
///     hold         sets the stack aside and starts an empty one
///     push_held    pushes the nodes set aside
///     drop         empties the stack (a stage whose result does not use it)
///     wait_sends   completes the sends made so far
///
/// Every merge is a frontier push, so every rank that follows its schedule computes nodes of
/// the fixed tree, each once, left to right (plan::verify checks it in one process for any
/// set of schedules). A rank that has failed still takes every message and sends every
/// message (the failure in place of values), so no peer waits.

#include "treefold/config.hpp"
#include "treefold/index_tree/node.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace treefold::plan {

/// What a step does (see the file comment).
enum class op : std::uint8_t {
    local, compute, push_local, post, take, receive, push_in, send, pop_out, flush, hold, push_held, drop, wait_sends
};

/// The name of an op, as printed.
const char* op_name(op o);

/// One step: an op and its operand (a local node or a message index; unused by the others).
struct step {
    op what = op::local;   ///< what the step does
    std::uint32_t arg = 0; ///< local node (local, compute, push_local), node (push_in) or message (the others that take one)
    /// The same op and operand.
    friend bool operator==(const step&, const step&) = default;
};

/// A message: its peer and its frontier nodes, a range of rank_schedule::nodes.
struct message {
    int peer = 0;            ///< the rank it goes to (sends) or comes from (receives)
    std::uint32_t first = 0; ///< its first node in rank_schedule::nodes
    std::uint32_t count = 0; ///< its number of nodes (values on the wire)
    /// The same peer and nodes.
    friend bool operator==(const message&, const message&) = default;
};

/// Where all_reduce's result is when the steps end.
enum class result_at : std::uint8_t {
    finisher,       ///< on the finisher; treefold's binomial broadcast sends it on
    finisher_mpi,   ///< on the finisher; MPI_Bcast sends it on (raw values; others as above)
    everywhere      ///< on every rank (allreduce schedules)
};

/// One rank's schedule of one exchange (see the file comment). A plain value: printable,
/// comparable, countable.
struct rank_schedule {
    std::string exchange;             ///< the exchange's registry name
    std::string parameters;           ///< what the generator was given besides the layout (a schedule's text form, ...)
    int p = 1;                        ///< ranks
    int rank = 0;                     ///< this rank
    int finisher = 0;                 ///< the rank that ends with the root (any rank when everywhere)
    result_at result = result_at::finisher; ///< where the root is at the end
    std::uint32_t header_bytes = 0;   ///< bytes every message carries besides its values (one_sided's queue header)
    index_tree::index_t n = 0;        ///< elements in all
    index_tree::index_t block_start = 0; ///< the first index of this rank's block
    std::vector<index_tree::node> local; ///< the maximal nodes of the block, in index order
    std::vector<index_tree::node> nodes; ///< the nodes of every message, message after message
    std::vector<message> receives;    ///< messages taken, by index
    std::vector<message> sends;       ///< messages sent, by index
    std::vector<step> steps;          ///< in order

    /// The nodes message `m` carries.
    std::span<const index_tree::node> nodes_of(const message& m) const
    {
        return std::span<const index_tree::node>(nodes).subspan(m.first, m.count);
    }
    /// Whether this rank ends with the root.
    bool holds_root() const { return n > 0 && (result == result_at::everywhere || rank == finisher); }
    /// Values this rank sends in one call (payload values, all messages).
    std::uint64_t values_sent() const;
    /// Bytes this rank sends in one call for values of `value_bytes` (headers included).
    std::uint64_t bytes_sent(std::uint64_t value_bytes) const;
    /// The schedule as text: a header line, then one line per step (nodes as x:y).
    std::string to_string() const;

    /// Equal in every field (the same exchange, rank, messages and steps).
    friend bool operator==(const rank_schedule&, const rank_schedule&) = default;
};

/// Messages and payload values every rank sends in one call of the exchange alone (without
/// the result's broadcast), summed over `ranks`.
struct totals {
    std::uint64_t messages = 0; ///< messages sent
    std::uint64_t values = 0;   ///< values in them
};
/// The totals of a set of schedules.
totals count(std::span<const rank_schedule> ranks);
/// Messages of the result's broadcast after the exchange (all_reduce): p − 1 where the root
/// ends on one rank (for p > 1 and N > 0), none where it ends everywhere.
std::uint64_t broadcast_messages(const rank_schedule& any_rank);

/// What plan::verify found: empty when the schedules are right.
struct verdict {
    bool ok = true;     ///< every check held
    std::string reason; ///< the first check that failed, naming the rank and the step
};
/// Runs the schedules of all p ranks (index r: rank r) in one process, with node names for
/// values: every message's nodes must be what its sender's stack holds, sends and receives
/// must pair in order per (sender, receiver), no rank may wait forever, every node pushed
/// must extend its stack's range (index order), every maximal node of every block must be
/// computed exactly once, and the finisher (or every rank, when the result is everywhere)
/// must end with the root (0, root_level(N)) as the only node. O(total steps).
verdict verify(std::span<const rank_schedule> ranks);

} // namespace treefold::plan
