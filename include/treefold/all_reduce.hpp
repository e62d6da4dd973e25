#pragma once
/// One-call reductions: treefold::all_reduce(comm, local, op) and treefold::reduce(comm,
/// local, root, op) for blocks in rank order, planned on first use and cached on the
/// communicator.

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"
#include "treefold/concepts.hpp"
#include "treefold/error.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/front_door/special_results.hpp"
#include "treefold/front_door/reduction_core.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

namespace treefold {

namespace detail {

/// The plan the one-call functions keep for elements of type T on one communicator: the
/// reducer's core over the blocks the ranks passed last (the operator comes with each call).
template <class T>
struct one_call_plan final : net::cached_plan {
    one_call_plan(const boost::mpi::communicator& comm, layout::block_layout layout) : core(comm, std::move(layout)) {}
    reduction_core<T, exchange::automatic, exchange::native> core;
};

/// The one-call reduction to every rank (no root) or to `root` (nullopt elsewhere).
template <class T, class Op>
std::optional<T> one_call_reduce(const boost::mpi::communicator& comm, const T* local, std::size_t count, Op& op,
                                 std::optional<int> root)
{
    refuse_fp_contraction<Op, T>();
    std::unique_ptr<net::cached_plan>& slot = net::cached_plan_slot(comm, typeid(one_call_plan<T>));
    for (bool retried = false;; retried = true) {
        if (!slot) {
            layout::block_layout layout = layout_from_local_size(comm, count);
            if (layout.size() == 0) { // not cached: the next call may have values
                if constexpr (ops::has_identity<Op, T>) {
                    // Every rank gathered the same zero counts; no message follows.
                    if (root && (*root < 0 || *root >= comm.size())) {
                        throw std::invalid_argument("treefold: reduce root " + std::to_string(*root) +
                                                    " is outside [0, " + std::to_string(comm.size()) + ")");
                    }
                    return !root || *root == comm.rank() ? std::optional<T>(ops::identity<Op, T>::value())
                                                         : std::nullopt;
                } else {
                    throw std::domain_error("treefold: reduction of N = 0 values has no result (the operator has "
                                            "no treefold::ops::identity)");
                }
            }
            slot = std::make_unique<one_call_plan<T>>(comm, std::move(layout));
        }
        try {
            auto& core = static_cast<one_call_plan<T>&>(*slot).core;
            if (root) {
                return settled<Op>(core.template reduce<kernel::best>(local, count, op, *root));
            }
            return settled<Op>(core.template all_reduce<kernel::best>(local, count, op));
        } catch (const local_size_error&) {
            // Some rank's count changed. Every rank throws this (the failure travels in place
            // of values), so every rank plans again, together.
            slot.reset();
            if (retried) {
                throw;
            }
        }
    }
}

} // namespace detail

/// The reduction of the values every rank of `comm` passes, concatenated in rank order
/// (rank 0's first), along treefold's tree: the same bits as a treefold::reducer over the same
/// N values, for every p and every split of them over the ranks. Returned on every rank.
///
/// Collective. The first call for an element type on a communicator gathers the local sizes
/// (one MPI_Allgather), builds the layout and plans the exchange (exchange::automatic), and
/// keeps the plan on the communicator (net::cached_plan_slot); later calls reuse it without
/// any extra communication. When some rank's size changes, the reduction itself reports the
/// mismatch on every rank, and every rank plans again and repeats the call: a change costs one
/// failed call and one plan. The plans are freed with the communicator (at MPI_Finalize for
/// MPI_COMM_WORLD). N = 0, NaN results and errors as treefold::reducer::all_reduce (N = 0: the
/// operator's ops::identity, else std::domain_error on every rank; a throwing operator: its
/// exception there, remote_failure elsewhere; contraction: std::logic_error). Not safe for
/// concurrent calls on the same communicator from several threads.
template <std::ranges::contiguous_range R, class Op = ops::plus>
    requires transportable<std::ranges::range_value_t<R>> && reduction_operator<Op, std::ranges::range_value_t<R>>
std::ranges::range_value_t<R> all_reduce(comm_view comm, const R& local, Op op = {})
{
    using T = std::ranges::range_value_t<R>;
    const std::span<const T> values(std::ranges::data(local), std::ranges::size(local));
    return std::move(*detail::one_call_reduce<T>(comm.get(), values.data(), values.size(), op, std::nullopt));
}

/// The same reduction as all_reduce, returned on `root` only (std::nullopt elsewhere). It
/// runs as all_reduce does (as treefold::reducer::reduce does) and drops the result off the
/// root; errors as reducer::reduce: every rank throws (a root outside [0, p) on any rank:
/// call_mismatch, a std::invalid_argument).
template <std::ranges::contiguous_range R, class Op = ops::plus>
    requires transportable<std::ranges::range_value_t<R>> && reduction_operator<Op, std::ranges::range_value_t<R>>
std::optional<std::ranges::range_value_t<R>> reduce(comm_view comm, const R& local, int root, Op op = {})
{
    using T = std::ranges::range_value_t<R>;
    const std::span<const T> values(std::ranges::data(local), std::ranges::size(local));
    return detail::one_call_reduce<T>(comm.get(), values.data(), values.size(), op, root);
}

} // namespace treefold
