#pragma once
/// The policy-based front door: a reproducible reduction of a distributed array.

#include "treefold/collective/layout_agreement.hpp"
#include "treefold/concepts.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/exchange/wire.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/layout/block_layout.hpp"

#include <boost/mpi/communicator.hpp>

#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace treefold {

/// An exchange plan whose run() leaves the result on every rank (allreduce schedules)
/// declares `static constexpr bool result_everywhere = true;` and the reducer then skips
/// the final broadcast; other plans leave it on their finisher().
template <class Plan>
concept result_everywhere_plan = requires { requires Plan::result_everywhere; };

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
/// - Exchange: how frontiers meet across ranks (exchange::direct, exchange::tree<Shape>,
///   exchange::one_sided, exchange::scheduled<Generator>).
///
/// Construction is collective: the communicator is duplicated (the reducer's messages never
/// meet the user's or another reducer's), and all ranks must pass the same layout with one
/// block per rank, else every rank throws the same std::invalid_argument. The plan is then
/// reused by every call; calls do not modify the input and, for trivially copyable T,
/// allocate nothing after the first.
template <transportable T, reduction_operator<T> Op = std::plus<T>, kernel_policy<T, Op> Kernel = kernel::best,
          exchange_policy<T> Exchange = exchange::direct>
    requires std::is_default_constructible_v<T> && std::is_copy_constructible_v<T>
class reducer {

public:
    using value_type = T;
    using operator_type = Op;
    using kernel_type = Kernel;
    using exchange_type = Exchange;

    /// Plans the reduction (collective over `comm`); see the class comment for the checks.
    reducer(const boost::mpi::communicator& comm, layout::block_layout layout, Op op = Op{})
        : comm_(comm, boost::mpi::comm_duplicate),
          layout_(verified(comm_, std::move(layout))),
          op_(std::move(op)),
          plan_(comm_, layout_)
    {
    }

    /// The reduction of all N values, returned on every rank (the same bits everywhere).
    ///
    /// Collective. If this rank's span does not hold exactly its block's count, or the
    /// operator throws on some rank, the exchange still completes (failures travel in place
    /// of values, so nobody waits) and then every rank throws: std::invalid_argument for a
    /// wrong size, the operator's own exception on the rank where it threw and
    /// exchange::remote_failure on the others. Exception: under the direct exchange a rank
    /// with an empty block takes no part in the exchange, so a wrong size there is reported
    /// on that rank only (its values cannot reach the result). N = 0 throws
    /// std::domain_error on every rank: there is no value and no identity is invented.
    T all_reduce(std::span<const T> local)
    {
        exchange::outcome<T> out = exchange_step(local);
        if constexpr (!result_everywhere_plan<plan_type>) {
            exchange::broadcast_outcome(comm_, plan_.finisher(), out, last_);
        }
        finish(out);
        return std::move(*out.value);
    }

    /// The reduction on `root` only (nullopt on the other ranks). Collective; `root` must be
    /// the same on every rank and in [0, p), else std::invalid_argument on the ranks that
    /// see it. Failures are thrown as in all_reduce on the root, on the rank where they
    /// happened and on every rank whose part of the exchange saw them; the other ranks
    /// return nullopt (a reduce does not broadcast).
    std::optional<T> reduce(std::span<const T> local, int root)
    {
        if (root < 0 || root >= comm_.size()) {
            throw std::invalid_argument("treefold: reduce root " + std::to_string(root) +
                                        " is not a rank of a communicator of size " +
                                        std::to_string(comm_.size()));
        }
        exchange::outcome<T> out = exchange_step(local);
        const int from = result_everywhere_plan<plan_type> ? root : plan_.finisher();
        if (from != root) {
            if (comm_.rank() == from) {
                if (out.failed) {
                    exchange::wire<T>::send_failure(comm_, root, *out.failed, last_);
                } else {
                    exchange::wire<T>::send(comm_, root, &*out.value, 1, last_);
                }
                out.value.reset();
            } else if (comm_.rank() == root) {
                std::optional<exchange::failure> failed;
                T v{};
                if (exchange::wire<T>::recv(comm_, from, &v, 1, failed) == 1) {
                    out.value = std::move(v);
                }
                out.failed = failed ? failed : out.failed;
            }
        }
        if (out.failed || own_error_) {
            finish(out);
        }
        if (comm_.rank() != root) {
            return std::nullopt;
        }
        finish(out);
        return std::move(out.value);
    }

    /// Messages and bytes this rank sent during the last call.
    const exchange::counters& last_counters() const { return last_; }
    /// The layout this reducer was planned for.
    const layout::block_layout& layout() const { return layout_; }
    /// Number of values this rank must pass.
    std::uint64_t local_count() const { return layout_.block_of(comm_.rank()).count; }
    /// The reducer's own (duplicated) communicator.
    const boost::mpi::communicator& communicator() const { return comm_; }
    /// The operator (with whatever state it holds).
    const Op& op() const { return op_; }

private:
    static layout::block_layout verified(const boost::mpi::communicator& comm, layout::block_layout l)
    {
        verify_same_layout(comm, l);
        return l;
    }

    exchange::outcome<T> exchange_step(std::span<const T> local)
    {
        last_ = {};
        own_error_ = nullptr;
        if (layout_.size() == 0) {
            throw std::domain_error("treefold: reduction of N = 0 values has no result");
        }
        std::optional<exchange::failure> failed;
        if (local.size() != local_count()) {
            failed = exchange::failure{exchange::failure::code::local_size, comm_.rank(), local.size(),
                                       local_count()};
        }
        return plan_.template run<Kernel>(local.data(), op_, failed, last_, own_error_);
    }

    void finish(const exchange::outcome<T>& out) const { exchange::throw_if_failed(out, own_error_); }

    boost::mpi::communicator comm_;
    layout::block_layout layout_;
    Op op_;
    using plan_type = typename Exchange::template plan<T>;
    plan_type plan_;
    exchange::counters last_;
    std::exception_ptr own_error_;
};

} // namespace treefold
