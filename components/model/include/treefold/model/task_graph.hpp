#pragma once
/// A task-graph simulator of message-passing programs, of the class the large-scale-collectives
/// thesis describes (§4.4): a program is a dependency graph of send, receive and compute tasks,
/// one lane of tasks per rank; a network model says what a message of b bytes costs; the
/// simulator gives every task its start and end, and instruments: busy and idle time per rank,
/// messages and bytes, the critical path, and an SVG timeline (one lane per rank).
///
/// Timing rules (any one time unit; the builders and the CLI use microseconds):
/// - every rank has two ports: the CPU (compute tasks and the sender's overhead) and the
///   receive port; a port serves the tasks that are ready in the order they became ready
///   (ties: the order they were added), one at a time;
/// - a task is ready when every task it comes after has ended; a receive is ready when it is
///   posted (its predecessors ended) and its message has arrived;
/// - a send occupies the CPU for send_overhead(b) and its message arrives latency(b) after
///   the send ends; a message over the model's eager limit (rendezvous(b)) cannot leave
///   before its receive is posted: it arrives latency(b) after the later of the two;
/// - a send's message also takes its task's `delay` in flight (e.g. random noise);
/// - a receive occupies the receive port for receive_overhead(b), and two receives on one
///   rank end at least receive_gap(b) apart (the pipelining model's α_r with receive
///   conflicts).
/// Receives match sends per (sender, receiver) pair in the order both were added (MPI's
/// non-overtaking rule). No MPI here.

#include "treefold/config.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/plan/schedule.hpp"
#include "treefold/model/loggp.hpp"
#include "treefold/model/pipelining.hpp"
#include "treefold/model/size_model.hpp"
#include "treefold/topology/schedule.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace treefold::model {

/// What a task does.
enum class task_kind {
    compute, ///< local work on the CPU for a fixed duration
    send,    ///< one message to a peer
    receive  ///< one message from a peer
};

/// A task of a program: its rank, what it does and what it comes after.
struct task {
    task_kind kind = task_kind::compute; ///< what it does
    int rank = 0;                    ///< the rank (lane) it runs on
    int peer = -1;                   ///< send: the receiver; receive: the sender
    std::uint64_t bytes = 0;         ///< send and receive: message size (a receive's comes from its send)
    double duration = 0;             ///< compute: how long it takes
    std::vector<std::size_t> after;  ///< tasks that must end before it starts (added earlier)
    std::size_t match = 0;           ///< send/receive: the matching task (set by task_graph::matched)
    double delay = 0;                ///< send: extra time its message spends in flight
};

/// A program as a task graph over ranks 0..ranks()-1.
class task_graph {
public:
    /// An empty program over `ranks` ranks (throws std::invalid_argument unless ranks >= 1).
    explicit task_graph(int ranks);

    /// The number of ranks.
    int ranks() const { return ranks_; }
    /// The tasks, by index (in the order they were added).
    const std::vector<task>& tasks() const { return tasks_; }

    /// Adds a compute task of `duration` (>= 0) on `rank`; returns its index.
    std::size_t compute(int rank, double duration, std::vector<std::size_t> after = {});
    /// Adds the send of a `bytes`-byte message from `from` to `to` (different ranks).
    std::size_t send(int from, int to, std::uint64_t bytes, std::vector<std::size_t> after = {});
    /// Adds a receive on `to` of the next message from `from` (matched in order with the sends).
    std::size_t receive(int to, int from, std::vector<std::size_t> after = {});
    /// Adds `extra` (finite, >= 0) to the time the message of send task `send` spends in flight.
    void add_delay(std::size_t send, double extra);

    /// Pairs every receive with its send (k-th receive of a pair with the k-th send) and
    /// gives each receive its message's size; throws std::invalid_argument naming the first
    /// pair whose counts differ. The simulator calls it; idempotent.
    void matched();

    /// Point-to-point messages (sends) in the program.
    std::uint64_t messages() const;

private:
    std::size_t add(task t);

    int ranks_;
    std::vector<task> tasks_;
    bool matched_ = false;
};

/// What a message costs: the interface every network model implements (times in the unit of
/// the model's parameters).
class network {
public:
    virtual ~network() = default;
    /// The sender's CPU time for a message of `bytes`.
    virtual double send_overhead(std::uint64_t bytes) const = 0;
    /// From the end of the send (or, for rendezvous, the later of it and the receive's
    /// posting) to the message's arrival.
    virtual double latency(std::uint64_t bytes) const = 0;
    /// The receive port's time per message.
    virtual double receive_overhead(std::uint64_t /*bytes*/) const { return 0; }
    /// The least time between the ends of two receives on one rank.
    virtual double receive_gap(std::uint64_t /*bytes*/) const { return 0; }
    /// True when a message of `bytes` waits for its receive to be posted (rendezvous protocol).
    virtual bool rendezvous(std::uint64_t /*bytes*/) const { return false; }
    /// A short name for tables.
    virtual std::string name() const = 0;
};

/// The pipelining model (model/pipelining.hpp): a send costs the sender α_r, a message
/// arrives α_p after its send; sizes play no part. With receive_cost::conflicts two receives
/// on a rank end at least α_r apart (simulate's rule).
class pipelining_network final : public network {
public:
    /// The network of the model parameters `m` (α_p, α_r, receive charge).
    explicit pipelining_network(const params& m);
    double send_overhead(std::uint64_t) const override { return m_.alpha_r; }
    double latency(std::uint64_t) const override { return m_.alpha_p; }
    double receive_gap(std::uint64_t) const override
    {
        return m_.receives == receive_cost::conflicts ? m_.alpha_r : 0.0;
    }
    std::string name() const override { return "pipelining"; }

private:
    params m_;
};

/// LogGP (model/loggp.hpp, the parameters the DSOP model reads too; its t_add, t_mul and bytes are
/// not used here): half of o on each side, L + b·G in flight, so one message costs o + L + b·G.
class loggp_network final : public network {
public:
    /// Throws std::invalid_argument unless L, o, G are finite and >= 0.
    explicit loggp_network(const loggp& m);
    double send_overhead(std::uint64_t) const override { return m_.o / 2; }
    double latency(std::uint64_t bytes) const override { return m_.L + static_cast<double>(bytes) * m_.G; }
    double receive_overhead(std::uint64_t) const override { return m_.o / 2; }
    std::string name() const override { return "loggp"; }

private:
    loggp m_;
};

/// The size-aware model (model::size_params, size_model.hpp) read as a network: α_r(n)'s
/// per-message term on the sender's CPU, but β·n in flight (LogGP's reading), so a rank can
/// overlap a message's bytes with its next send; above the eager limit the message waits for
/// its receive (rendezvous) and adds rendezvous_p + rendezvous_beta·n to its flight and
/// rendezvous_r to its sender. The analytic model (size_params::at) charges β·n to the
/// sender instead, as the thesis's Table 4.1 does: one parameter set, two readings.
class size_aware_network final : public network {
public:
    /// Throws std::invalid_argument (naming the term) unless m.check() holds.
    explicit size_aware_network(const size_params& m);
    double send_overhead(std::uint64_t bytes) const override
    {
        return m_.base.alpha_r + (rendezvous(bytes) ? m_.rendezvous_r : 0.0);
    }
    double latency(std::uint64_t bytes) const override
    {
        const double n = static_cast<double>(bytes);
        return m_.base.alpha_p + n * m_.beta + (rendezvous(bytes) ? m_.rendezvous_p + m_.rendezvous_beta * n : 0.0);
    }
    bool rendezvous(std::uint64_t bytes) const override { return bytes > m_.eager_limit; }
    std::string name() const override { return "size"; }

private:
    size_params m_;
};

/// How a task's start was decided (for the critical path).
enum class bound_by {
    nothing,    ///< started at 0
    dependency, ///< a task it comes after
    port,       ///< the previous task on the same port (or the receive gap)
    message     ///< its message's arrival (receives only)
};

/// One task's simulated times.
struct task_time {
    double start = 0;       ///< when it got its port
    double end = 0;         ///< when it ended
    double arrival = 0;     ///< receives: when the message arrived
    bound_by bound = bound_by::nothing; ///< what decided its start
    std::size_t by = 0;     ///< the task that bound it (dependency, port or the send)
};

/// Per-rank instruments.
struct rank_stats {
    double busy = 0;             ///< sum of the rank's task times (compute, send and receive overheads)
    double idle = 0;             ///< makespan − busy (never below 0)
    double finish = 0;           ///< when its last task ended
    std::uint64_t sent = 0;      ///< messages sent
    std::uint64_t received = 0;  ///< messages received
    std::uint64_t bytes_sent = 0;     ///< bytes of the messages sent
    std::uint64_t bytes_received = 0; ///< bytes of the messages received
};

/// One step of the critical path: a task and how long it waited before it (on a message, a
/// port gap or nothing) and ran.
struct path_step {
    std::size_t task = 0;              ///< the task's index
    bound_by edge = bound_by::nothing; ///< how it was bound to the previous step
    double wait = 0;                   ///< time between the previous step's end and this task's start (message latency or port gap)
    double run = 0;                    ///< end − start
};

/// What a simulation reports.
struct timeline {
    double makespan = 0;                ///< the last task's end
    std::vector<task_time> times;       ///< by task index
    std::vector<rank_stats> ranks;      ///< by rank
    std::uint64_t messages = 0;         ///< messages sent, over all ranks
    std::uint64_t bytes = 0;            ///< bytes sent, over all ranks
    std::vector<path_step> critical_path; ///< from the first task to the one that ends last
};

/// Simulates `g` under `net` (matches its messages first). Throws std::invalid_argument if a
/// message has no receive, or std::logic_error if the graph has a cycle (a task never runs).
timeline simulate_graph(task_graph& g, const network& net);

/// What local work costs in the builders (the pipelining model has none: leave them at 0).
struct work_costs {
    double per_call = 0;            ///< fixed software cost of a call on every rank, before anything else
    double per_element = 0;         ///< the local kernel, per element of the block
    double per_value = 0;           ///< combining one received value into a frontier
    std::uint64_t value_bytes = 8;  ///< bytes per value on the wire
};

/// Bytes of the partial that covers positions [lo, hi) of a schedule or a tree.
using partial_bytes = std::function<std::uint64_t(int lo, int hi)>;

/// One value per partial (a scalar allreduce of `value_bytes`-byte values).
partial_bytes scalar_partials(std::uint64_t value_bytes = 8);
/// Frontier sizes: the maximal nodes of the index range positions [lo, hi) cover in `layout`
/// (positions in index order, layout::position_starts), times `value_bytes`.
partial_bytes frontier_partials(const layout::block_layout& layout, std::uint64_t value_bytes = 8);

/// The schedule `s` over p ranks (position q on rank q) as a task graph: per_call plus
/// `local(q)` of local work first (if either is given), then per round and position its sends in issue order and its
/// receives (all after the previous round), then a combine (per_value per value received)
/// that the next round comes after. Throws std::invalid_argument unless s fits p.
task_graph schedule_graph(const topology::schedule& s, int p, const partial_bytes& bytes = scalar_partials(),
                          const work_costs& work = {}, const std::function<double(int)>& local = {});

/// Optional noise of simulate: each message's flight gets an extra exponential delay with this mean.
struct noise {
    double mean = 0;        ///< mean extra delay per message (0: deterministic)
    std::uint64_t seed = 1; ///< random seed (same seed, same result)
};

/// What simulate reports.
struct simulation {
    double time = 0;            ///< completion: when the last rank ends its last round
    std::uint64_t messages = 0; ///< point-to-point messages sent
};

/// One allreduce with `s` over p ranks under the pipelining model: schedule_graph(s, p) on
/// pipelining_network with receive conflicts, whatever m.receives says. A rank issues its
/// sends of a round α_r apart, a message arrives α_p later (plus noise, drawn in the order
/// round, sender, issue order), a rank handles one arrival of a round per α_r and starts its
/// next round when its sends and receives are done; ranks wait only for the messages they
/// need, so stages overlap where the data flow allows. Without noise a factor-f stage of
/// synchronised ranks takes α_p + (f−1)·α_r and factor-only schedules on p = (b+1)^k finish
/// at (α_p + b·α_r)·log_{b+1} p; it never exceeds modelled_time with receive_cost::conflicts.
/// Throws std::invalid_argument unless s.fits(p) and m and n are valid.
simulation simulate(const topology::schedule& s, int p, const params& m, const noise& n = {});

/// Appends to `g` a binomial broadcast of a `bytes`-byte result from `root` (the reducer's,
/// net/transport.hpp): every rank receives from its parent after `after[rank]`, then sends to
/// its children, farthest first. `after` holds one task per rank (or none: SIZE_MAX).
void add_broadcast(task_graph& g, int root, std::uint64_t bytes, const std::vector<std::size_t>& after);

/// Marks "no task" in add_broadcast's `after`.
inline constexpr std::size_t no_task = static_cast<std::size_t>(-1);

/// One all_reduce of an exchange as a task graph, from every rank's schedule (index r: rank r;
/// plan/schedule.hpp), the same schedules the executor runs: per_call, then each rank's steps
/// in order (a local node: per_element per element; a send or flush: a message of its values
/// times value_bytes, plus the schedule's header_bytes; a posted receive waits from its post, others from the step before; a
/// take merges per_value per value, a push_in per_value), then the binomial broadcast from the
/// finisher where the result is not everywhere. Throws std::invalid_argument unless the
/// schedules are ranks 0..p-1 of one p.
task_graph exchange_graph(std::span<const plan::rank_schedule> ranks, const work_costs& work = {});
/// Drawing options of write_svg.
struct svg_options {
    double width = 1000;          ///< pixels of the time axis
    double lane = 16;             ///< pixels per rank
    int max_ranks = 64;           ///< lanes drawn at most (the first ones)
    std::string title;            ///< printed above the lanes
};

/// Writes the timeline as an SVG document: one lane per rank, a box per task (compute grey,
/// send blue, receive green), a line from every send's end to its receive's end, the critical
/// path outlined in red, and a time axis.
void write_svg(std::ostream& out, const task_graph& g, const timeline& t, const svg_options& o = {});

} // namespace treefold::model
