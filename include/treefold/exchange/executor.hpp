#pragma once
/// The one executor of rank schedules (plan/schedule.hpp): every exchange but `native` is a
/// generator of schedules and this loop. Local nodes go through the kernel (offset form where
/// the kernel has one), received values land in an inbox at their node's place, every merge
/// is a frontier push, and sends never block until the schedule says wait_sends.
///
/// Failures, in the one framing of net/transport.hpp: a rank that failed, or learned of a
/// failure, computes and merges nothing more but still takes every message of its schedule and
/// sends every message (the failure in its place), so no peer waits and nothing is left for
/// the next call. Where every rank ends with the root and the operator may throw in a rank's
/// last merge, the ranks agree on failure after the steps (net/transport.hpp).
///
/// How a message travels is the executor's channel (message_channel): point-to-point MPI
/// messages (point_to_point, every exchange of the core), or a component's own, such as the
/// rma component's one-sided queues.

#include "treefold/concepts.hpp"
#include "treefold/config.hpp"
#include "treefold/error.hpp"
#include "treefold/frontier.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/plan/schedule.hpp"

#include <boost/mpi/communicator.hpp>

#include <concepts>
#include <cstddef>
#include <exception>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

// What an exchange plan's run() leaves on a rank, and the contract every plan meets.
namespace treefold::exchange {

/// A call's outcome on one rank: a value, a failure, or (on most ranks mid-way) neither.
template <class T>
struct outcome {
    std::optional<T> value; ///< the root, on a rank that holds it
    maybe_failure failed;   ///< the failure this rank saw or was told of
};

/// An exchange plan for values of type T (Exchange::plan<T>), built once from the reducer's
/// communicator and layout. run<Kernel>(local, op, failed, counters, own_error) computes this
/// rank's block with the kernel and combines the frontiers across ranks; on return the
/// finisher() rank's outcome holds the root or a failure (every rank's, when the plan declares
/// `static constexpr bool result_everywhere = true`).
template <class Plan>
concept result_everywhere_plan = requires { requires Plan::result_everywhere; };

/// Whether `plan` leaves the result on every rank (no broadcast after its run): a plan says
/// so with `static constexpr bool result_everywhere = true` or a member result_everywhere().
template <class Plan>
bool result_everywhere(const Plan& plan)
{
    if constexpr (requires { plan.result_everywhere(); }) {
        return plan.result_everywhere();
    } else {
        return result_everywhere_plan<Plan>;
    }
}

/// How an all_reduce's result leaves the finisher when the plan leaves it on that rank only.
enum class result_broadcast {
    point_to_point, ///< treefold's binomial broadcast on its own messages (net::broadcast)
    mpi             ///< the MPI library's MPI_Bcast (raw T; other T go point to point)
};

/// Whether `plan` sends its result out through MPI_Bcast: a plan says so with a member
/// broadcast_by_mpi().
template <class Plan>
bool broadcasts_by_mpi(const Plan& plan)
{
    if constexpr (requires { plan.broadcast_by_mpi(); }) {
        return plan.broadcast_by_mpi();
    } else {
        return false;
    }
}

/// all_reduce's step after the plan's run: the finisher's outcome (value or failure) to every
/// rank, where the plan did not leave it everywhere already. A rank keeps its own failure.
template <class T, class Plan>
void share_result(const Plan& plan, const boost::mpi::communicator& comm, outcome<T>& out, net::counters& count)
{
    if (result_everywhere(plan)) {
        return;
    }
    if (!out.value) {
        out.value.emplace(); // where the broadcast puts the result
    }
    if constexpr (std::is_trivially_copyable_v<T>) {
        if (broadcasts_by_mpi(plan)) {
            net::mpi_broadcast(comm, *out.value, plan.finisher(), out.failed, count);
            return;
        }
    }
    net::values_channel<T> result{comm, count, &*out.value, 1};
    net::broadcast(result, comm.size(), comm.rank(), plan.finisher(), out.failed);
}

/// Whether a call can throw in a rank's last step: `op` can, unless it is noexcept or a
/// built-in operator on an arithmetic type; so can decoding a value of a T that travels by
/// Boost.Serialization (its load()). Exchanges where each rank makes its own last combine
/// (allreduce schedules, MPI's allreduce) agree on failure after the call only when it can
/// (net/transport.hpp).
template <class Op, class T>
inline constexpr bool may_throw =
    (!std::is_nothrow_invocable_v<Op&, const T&, const T&> &&
     !(ops::builtin_kind_of<Op, T> != ops::builtin_kind::none && std::is_arithmetic_v<T>)) ||
    (!std::is_trivially_copyable_v<T> && !has_own_codec<T>::value);

/// The outcome of a call that ended with `failed`: where it did not fail and `holds_root`,
/// the root, popped from this rank's frontier.
template <class T>
outcome<T> finish(const maybe_failure& failed, frontier<T>& f, bool holds_root)
{
    outcome<T> out; // (member by member: a braced outcome is zeroed whole, 112 bytes for a double)
    if (!failed && holds_root) {
        out.value.emplace(f.pop_back());
    } else {
        out.failed = failed;
    }
    return out;
}

/// Runs one step of a plan that calls the operator: if it throws, the exception becomes this
/// rank's own error and the call is marked failed (the exchange still completes). Inlined:
/// it wraps every node of the hot loops.
template <class Step>
[[gnu::always_inline]] inline void guarded(int rank, maybe_failure& failed, std::exception_ptr& own_error, Step&& step)
{
    try {
        step();
    } catch (...) {
        own_error = std::current_exception();
        failed = failure::op_threw(rank, own_error);
    }
}

} // namespace treefold::exchange

namespace treefold::exchange {

/// The schedule of the core exchange called `name` (exchange/registry.hpp: every one but
/// native and automatic) for `rank`, made inside the library, so a program that picks an
/// exchange at run time (automatic, native's fallback) instantiates no exchange type. Throws
/// std::invalid_argument naming the core's scheduled exchanges for any other name.
plan::rank_schedule core_schedule(std::string_view name, const layout::block_layout& layout, int rank);

/// How the executor's messages travel. begin() starts a call (the schedule and the counters
/// stay valid until the next begin()); post(k, into) may start receive k into `into` early;
/// receive(k, into) stores receive k's exactly m.count values at `into`, or returns the
/// failure its sender sent in their place; stage(k, values) prepares send k (it may throw
/// while encoding: nothing has left then) and send(k) sends it, or send_failure(k, f) sends
/// the failure in its place; wait_sends() completes the sends made so far.
template <class C, class T>
concept message_channel = requires(C c, std::size_t k, T* into, std::span<const T> values, const failure& f,
                                   const plan::rank_schedule& s, net::counters& count) {
    c.begin(s, count);
    c.post(k, into);
    { c.receive(k, into) } -> std::same_as<maybe_failure>;
    c.stage(k, values);
    c.send(k);
    c.send_failure(k, f);
    c.wait_sends();
};

/// The core's channel: MPI point-to-point messages in the framing of net/transport.hpp
/// (raw values straight into place, posted early where the schedule says post; any other T
/// through its codec); sends do not block until wait_sends().
template <class T>
class point_to_point {
public:
    /// Messages on `comm` (treefold's private communicator).
    explicit point_to_point(const boost::mpi::communicator& comm) : comm_(comm) {}

    /// Starts a call: this schedule and these counters until the next begin().
    void begin(const plan::rank_schedule& s, net::counters& count)
    {
        s_ = &s;
        count_ = &count;
        if (!s.receives.empty()) {
            posted_.resize(s.receives.size());
            is_posted_.assign(s.receives.size(), 0);
        }
    }

    /// Starts receive k into `into` early where the channel can (message_channel).
    void post(std::size_t k, T* into)
    {
        if constexpr (net::codec<T>::raw) {
            const plan::message& m = s_->receives[k];
            posted_[k].post(comm_, m.peer, reinterpret_cast<char*>(into), std::size_t{m.count} * sizeof(T));
            is_posted_[k] = 1;
        }
    }

    /// Receive k's values into `into`, or the failure its sender sent in their place.
    maybe_failure receive(std::size_t k, T* into)
    {
        const plan::message& m = s_->receives[k];
        maybe_failure remote;
        std::size_t got = 0;
        if constexpr (net::codec<T>::raw) {
            if (is_posted_[k]) {
                remote = posted_[k].wait(got);
                if (!remote) {
                    net::codec<T>::check_raw(got, m.count);
                    got /= sizeof(T);
                }
            } else {
                got = net::recv_values(comm_, m.peer, into, m.count, remote);
            }
        } else {
            got = net::recv_values(comm_, m.peer, into, m.count, remote);
        }
        if (!remote && got != m.count) {
            net::unexpected_size();
        }
        return remote;
    }

    /// Prepares send k from `values` (may throw while encoding; nothing has left then).
    void stage(std::size_t k, std::span<const T> values)
    {
        net::codec<T>::append(comm_, values.data(), values.size(), sends_.buffer(k));
    }
    /// Sends what stage(k) prepared.
    void send(std::size_t k) { sends_.send(comm_, s_->sends[k].peer, k, *count_); }
    /// Sends the failure `f` in place of send k.
    void send_failure(std::size_t k, const failure& f) { sends_.send_failure(comm_, s_->sends[k].peer, k, f, *count_); }
    /// Completes the sends made so far.
    void wait_sends() { sends_.wait_all(); }

private:
    boost::mpi::communicator comm_;
    const plan::rank_schedule* s_ = nullptr;
    net::counters* count_ = nullptr;
    std::vector<net::posted_receive> posted_;
    std::vector<unsigned char> is_posted_; // not vector<bool>: its bit code is compiled in every program
    net::send_queue sends_;
};

/// Runs one rank's schedule for values of type T, its messages through `Channel`; built
/// once per reducer, run every call. The plans of the scheduled exchanges derive from it
/// (only their constructors differ).
template <class T, class Channel = point_to_point<T>>
    requires message_channel<Channel, T>
class executor {
public:
    /// Runs `schedule` (this rank's, made for `comm`'s size and rank) on `comm`; the channel
    /// is built from `comm` and `channel_args`.
    template <class... A>
    executor(const boost::mpi::communicator& comm, plan::rank_schedule schedule, A&&... channel_args)
        : comm_(comm), s_(std::move(schedule)), stack_(s_.n), held_(s_.n),
          channel_(comm, std::forward<A>(channel_args)...),
          alone_(s_.p == 1 && s_.local.size() == 1 && s_.receives.empty() && s_.sends.empty())
    {
        slots_.resize(s_.local.size());
        inbox_.resize(s_.nodes.size() + 1); // a received node's value sits at its node's index (+ 1: never null)
    }

    /// The rank that ends with the root (any rank, where every rank does).
    int finisher() const { return s_.finisher; }
    /// Whether every rank ends with the root (no broadcast after the run; so on one rank).
    bool result_everywhere() const { return s_.result == plan::result_at::everywhere || s_.p == 1; }
    /// Whether all_reduce's result leaves the finisher through MPI_Bcast (raw T only).
    bool broadcast_by_mpi() const
    {
        return s_.result == plan::result_at::finisher_mpi && std::is_trivially_copyable_v<T>;
    }
    /// The schedule this plan runs.
    const plan::rank_schedule& schedule() const { return s_; }
    /// Whether the schedule is one rank's computing its one node, the root, with no message:
    /// a call may then compute that node and skip run() (reduction_core does, for operators
    /// that cannot throw; run() would push and pop the node and agree on nothing).
    bool alone() const { return alone_; }

    /// Runs the schedule. `local` points at this rank's block (ignored when `failed` is set
    /// on entry). On return the outcome of a rank that holds the root has it, or the failure;
    /// other ranks' outcome holds a failure only if they saw one. `own_error` receives the
    /// exception the operator (or a value's encoding) threw on this rank, if any.
    template <class Kernel, class Op>
    outcome<T> run(const T* local, Op& op, maybe_failure failed, net::counters& count,
                   std::exception_ptr& own_error)
    {
        const int me = s_.rank; // (the schedule's: no MPI call per run)
        stack_.reset(s_.n);
        out_.clear();
        channel_.begin(s_, count);
        for (const plan::step st : s_.steps) {
            const std::size_t k = st.arg;
            switch (st.what) {
            case plan::op::local:
                if (!failed) {
                    guarded(me, failed, own_error, [&] { stack_.push(s_.local[k], compute<Kernel>(local, k, op), op); });
                }
                break;
            case plan::op::compute:
                if (!failed) {
                    guarded(me, failed, own_error, [&] { slots_[k] = compute<Kernel>(local, k, op); });
                }
                break;
            case plan::op::push_local:
                if (!failed) {
                    guarded(me, failed, own_error, [&] { stack_.push(s_.local[k], std::move(slots_[k]), op); });
                }
                break;
            case plan::op::post: channel_.post(k, inbox_.data() + s_.receives[k].first); break;
            case plan::op::take:
                if (receive(k, failed) && !failed) {
                    const plan::message& m = s_.receives[k];
                    guarded(me, failed, own_error, [&] {
                        for (std::size_t j = m.first; j < m.first + m.count; ++j) {
                            stack_.push(s_.nodes[j], std::move(inbox_[j]), op);
                        }
                    });
                }
                break;
            case plan::op::receive: (void)receive(k, failed); break;
            case plan::op::push_in:
                if (!failed) {
                    guarded(me, failed, own_error, [&] { stack_.push(s_.nodes[k], std::move(inbox_[k]), op); });
                }
                break;
            case plan::op::send: send(k, stack_.values(), failed, own_error); break;
            case plan::op::pop_out:
                if (!failed) {
                    out_.push_back(stack_.pop_back());
                }
                break;
            case plan::op::flush:
                send(k, out_, failed, own_error);
                out_.clear();
                break;
            case plan::op::hold:
                std::swap(stack_, held_);
                stack_.reset(s_.n);
                break;
            case plan::op::push_held:
                if (!failed) {
                    guarded(me, failed, own_error, [&] { stack_.merge(held_, op); });
                }
                break;
            case plan::op::drop: stack_.reset(s_.n); break;
            case plan::op::wait_sends: channel_.wait_sends(); break;
            }
        }
        channel_.wait_sends();
        if constexpr (may_throw<Op, T>) {
            if (s_.result == plan::result_at::everywhere) {
                net::agree_on_failure(comm_, failed, count); // a throw in a rank's last merge reaches no one else
            }
        }
        return finish(failed, stack_, s_.holds_root());
    }

private:
    template <class Kernel, class Op>
    T compute(const T* local, std::size_t k, Op& op)
    {
        const index_tree::node v = s_.local[k];
        return treefold::detail::local_node<Kernel>(local, v.x - s_.block_start, index_tree::cover_size(v, s_.n), op);
    }

    /// Receives message k into the inbox; false (with `failed` set) if it carried a failure.
    bool receive(std::size_t k, maybe_failure& failed)
    {
        if (maybe_failure remote = channel_.receive(k, inbox_.data() + s_.receives[k].first)) {
            failed = failed ? failed : remote;
            return false;
        }
        return true;
    }

    /// Sends `values` as message k, or the failure in their place.
    void send(std::size_t k, std::span<const T> values, maybe_failure& failed, std::exception_ptr& own_error)
    {
        if (!failed) {
            if (values.size() != s_.sends[k].count) {
                net::unexpected_size();
            }
            try {
                channel_.stage(k, values);
            } catch (...) {
                failed = net::codec_failure(comm_);
                own_error = net::codec_error();
            }
        }
        if (failed) {
            channel_.send_failure(k, *failed);
        } else {
            channel_.send(k);
        }
    }

    boost::mpi::communicator comm_;
    plan::rank_schedule s_;
    // Per-call state (capacity kept between calls).
    frontier<T> stack_;
    frontier<T> held_;
    std::vector<T> slots_;
    std::vector<T> inbox_;
    std::vector<T> out_;
    Channel channel_;
    bool alone_; // one rank, one local node, no message (alone())

protected:
    /// The channel (a component's plan reads its channel's state).
    const Channel& channel() const { return channel_; }
};

} // namespace treefold::exchange
