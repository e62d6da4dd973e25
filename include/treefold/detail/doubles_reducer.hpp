#pragma once
/// What accurate_reducer and binned_reducer share: a reducer of doubles whose tree nodes are
/// computed straight from the doubles by a kernel into a wider value type (a double-double,
/// a binned accumulator), merged along the tree by that type's operator and rounded back to
/// double at the end.

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"
#include "treefold/concepts.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/layout/distribution.hpp"
#include "treefold/detail/order_free_record.hpp"
#include "treefold/detail/reduction_core.hpp"
#include "treefold/detail/special_results.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

namespace treefold::detail {

/// Sums N doubles spread over the ranks in blocks as values of type Value (with
/// `double to_double() const`): each tree node over local doubles is `Kernel::sum(first,
/// len)`, nodes merge with Merge (a default-constructible operator on Value), frontiers
/// travel as Value. The kernel takes its nodes by offset into the call's doubles
/// (offset_kernel), so no array of Value stands in for the input.
template <class Value, class Kernel, class Merge, exchange_policy<Value> Exchange>
class doubles_reducer {
public:
    /// Plans the sum over `layout` (collective; see treefold::reducer).
    doubles_reducer(comm_view comm, layout::block_layout layout, checking checks = checking::from_environment)
        : core_(comm.get(), std::move(layout), 1, checks)
    {
    }

    /// Plans the sum of N values in blocks in rank order decided by `distribution`
    /// (dist::even_upper by default); each rank then passes local_count() values.
    template <layout::distribution_policy Distribution = dist::even_upper>
    doubles_reducer(comm_view comm, std::uint64_t n, Distribution distribution = {})
        : doubles_reducer(comm, layout::block_layout::from_counts(distribution.counts(n, comm.get().size())))
    {
    }

    /// The sum of all N values rounded to double, on every rank (the same bits everywhere).
    /// Collective; errors as treefold::reducer::all_reduce (a span of the wrong size:
    /// std::invalid_argument on every rank). N = 0 gives +0.0 and a NaN sum the canonical
    /// quiet NaN, as for treefold::reducer under ops::plus.
    double all_reduce(std::span<const double> local) { return settled<ops::plus>(all_reduce_parts(local).to_double()); }

    /// The sum as the Value the tree computed, before rounding (the same checks; N = 0: the
    /// zero Value).
    Value all_reduce_parts(std::span<const double> local)
    {
        if (core_.layout().size() == 0) {
            agree_on_empty_call(core_.communicator(), local.size(), -1, false);
            return Value{};
        }
        node_op op{local.data()};
        return core_.template all_reduce<node_kernel>(nullptr, local.size(), op);
    }

    /// The sum on `root` only (nullopt elsewhere); as treefold::reducer::reduce.
    std::optional<double> reduce(std::span<const double> local, int root)
    {
        if (core_.layout().size() == 0) {
            agree_on_empty_call(core_.communicator(), local.size(), root, true);
            return core_.communicator().rank() == root ? std::optional<double>(0.0) : std::nullopt;
        }
        node_op op{local.data()};
        const std::optional<Value> out = core_.template reduce<node_kernel>(nullptr, local.size(), op, root);
        return out ? std::optional<double>(settled<ops::plus>(out->to_double())) : std::nullopt;
    }

    /// The exchange this reducer runs (for exchange::automatic, the one it chose).
    std::string_view exchange_used() const { return core_.exchange_used(); }
    /// Messages and bytes this rank sent during the last call.
    const net::counters& last_counters() const { return core_.last_counters(); }
    /// The layout this reducer was planned for.
    const layout::block_layout& layout() const { return core_.layout(); }
    /// Number of values this rank must pass.
    std::uint64_t local_count() const { return core_.local_count(); }
    /// This rank's block of the global index.
    layout::block local_block() const { return core_.layout().block_of(core_.communicator().rank()); }

private:
    /// The operator the exchange sees: Merge, carrying where this call's doubles are.
    struct node_op {
        /// Order-free exactly when Merge is (order_free_record.hpp).
        static constexpr bool order_free = order_free_op<Merge>;
        const double* data; // this call's local values
        Value operator()(const Value& a, const Value& b) const noexcept { return Merge{}(a, b); }
    };

    /// Kernel policy for the plans, in offset form: the node's doubles through Kernel.
    struct node_kernel {
        static Value reduce_at(std::uint64_t offset, std::uint64_t len, node_op& op)
        {
            return Kernel::sum(op.data + offset, len);
        }
    };

    reduction_core<Value, Exchange> core_;
};

} // namespace treefold::detail
