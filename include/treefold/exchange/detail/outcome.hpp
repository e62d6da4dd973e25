#pragma once
/// What an exchange plan's run() leaves on a rank, and the contract every plan meets.

#include "treefold/config.hpp"
#include "treefold/concepts.hpp"
#include "treefold/error.hpp"
#include "treefold/frontier.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/net/tree_walk.hpp"

#include <boost/mpi/communicator.hpp>

#include <exception>
#include <optional>
#include <type_traits>

namespace treefold::exchange {

/// A call's outcome on one rank: a value, a failure, or (on most ranks mid-way) neither.
template <class T>
struct outcome {
    std::optional<T> value;
    maybe_failure failed;
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
/// (net/agreement.hpp).
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
