#pragma once
/// The policy-based front door: a reproducible reduction of a distributed array.

#include "treefold/config.hpp"
#include "treefold/concepts.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reduction_core.hpp"
#include "treefold/request.hpp"

#include <boost/mpi/communicator.hpp>

#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace treefold {

/// Reduces N values spread over the ranks of a communicator in blocks (a layout) with a
/// binary operator, along the tree fixed by the global index: the result has the same bits
/// for every process count, block layout, exchange and kernel.
///
/// - T: any default-constructible, copyable type. Trivially copyable types travel as raw
///   bytes, any other type through Boost.Serialization.
/// - Op: any callable T(const T& left, const T& right): functors, function pointers, lambdas
///   with captured state (kept in the reducer and called on this rank). Neither associativity
///   nor commutativity is assumed; the left operand always covers lower indices.
/// - Kernel: the local kernel computing a node from its elements (kernel::best: the SIMD
///   kernel of the best architecture the CPU supports, chosen at run time; kernel::scalar
///   is the reference).
/// - Exchange: how frontiers meet across ranks (exchange::automatic, the default, picks the
///   fastest here; exchange::native, exchange::direct, exchange::tree<Shape>,
///   exchange::one_sided, exchange::scheduled<Generator>).
///
/// Construction is collective: the communicator is duplicated (the reducer's messages never
/// meet the user's or another reducer's), and all ranks must pass the same layout with one
/// block per rank, else every rank throws the same std::invalid_argument. The plan is then
/// reused by every call; calls do not modify the input and, for trivially copyable T,
/// allocate nothing after the first.
template <transportable T, reduction_operator<T> Op = std::plus<T>, kernel_policy<T, Op> Kernel = kernel::best,
          exchange_policy<T> Exchange = exchange::automatic>
    requires std::is_default_constructible_v<T> && std::is_copy_constructible_v<T>
class reducer {

public:
    using value_type = T;
    using operator_type = Op;
    using kernel_type = Kernel;
    using exchange_type = Exchange;

    /// Plans the reduction (collective over `comm`); see the class comment for the checks.
    reducer(const boost::mpi::communicator& comm, layout::block_layout layout, Op op = Op{})
        : core_(comm, std::move(layout)), op_(std::move(op))
    {
    }

    /// The reduction of all N values, returned on every rank (the same bits everywhere).
    ///
    /// Collective. If this rank's span does not hold exactly its block's count, or the
    /// operator throws on some rank, the exchange still completes (failures travel in place
    /// of values, so nobody waits) and then every rank throws: std::invalid_argument for a
    /// wrong size, the operator's own exception on the rank where it threw and
    /// remote_failure (error.hpp) on the others. Exception: under the direct and one-sided
    /// exchanges (and automatic when it chose direct) a rank with an empty block takes no
    /// part in the exchange, so a wrong size there is reported on that rank and on the ranks
    /// the broadcast reaches through it (its values cannot reach the result). N = 0 throws std::domain_error on every rank:
    /// there is no value and no identity is invented.
    T all_reduce(std::span<const T> local) { return core_.template all_reduce<Kernel>(local.data(), local.size(), op_); }

    /// The reduction on `root` only (nullopt on the other ranks). Collective; `root` must be
    /// the same on every rank and in [0, p), else std::invalid_argument on the ranks that
    /// see it. Failures are thrown as in all_reduce on the root, on the rank where they
    /// happened and on every rank whose part of the exchange saw them; the other ranks
    /// return nullopt (a reduce does not broadcast).
    std::optional<T> reduce(std::span<const T> local, int root)
    {
        return core_.template reduce<Kernel>(local.data(), local.size(), op_, root);
    }

    /// Starts all_reduce(local) and returns at once; the request's wait() returns what
    /// all_reduce returns, or throws what it throws. Collective (every rank starts it, in the
    /// same order as its other calls on this reducer). The local kernel runs before this
    /// returns; the exchange then progresses in the MPI library (the native exchange's
    /// MPI_Iallreduce, whatever `Exchange` is: the same bits). `local` must stay valid and
    /// unmodified until wait() returns, and the reducer takes no other call meanwhile
    /// (std::logic_error). For T that is not trivially copyable the call completes before
    /// iall_reduce returns.
    request<T, T> iall_reduce(std::span<const T> local)
    {
        return request<T, T>(core_.template start<Kernel>(local.data(), local.size(), op_, -1));
    }

    /// Starts reduce(local, root) (MPI_Ireduce); as iall_reduce, and wait() returns what
    /// reduce returns.
    request<T, std::optional<T>> ireduce(std::span<const T> local, int root)
    {
        return request<T, std::optional<T>>(core_.template start<Kernel>(local.data(), local.size(), op_, root));
    }

    /// The exchange this reducer runs (for exchange::automatic, the one it chose).
    std::string_view exchange_used() const { return core_.exchange_used(); }

    /// Messages and bytes this rank sent during the last call.
    const net::counters& last_counters() const { return core_.last_counters(); }
    /// The layout this reducer was planned for.
    const layout::block_layout& layout() const { return core_.layout(); }
    /// Number of values this rank must pass.
    std::uint64_t local_count() const { return core_.local_count(); }
    /// The reducer's own (duplicated) communicator.
    const boost::mpi::communicator& communicator() const { return core_.communicator(); }
    /// The operator (with whatever state it holds).
    const Op& op() const { return op_; }

private:
    detail::reduction_core<T, Exchange> core_;
    Op op_;
};

} // namespace treefold
