#pragma once
/// What accurate_reducer and binned_reducer share: a reducer of doubles whose tree nodes are
/// computed straight from the doubles by a kernel into a wider value type (a double-double,
/// a binned accumulator), merged along the tree by that type's operator and rounded back to
/// double at the end.

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"
#include "treefold/concepts.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/exchange/detail/records.hpp"
#include "treefold/front_door/special_results.hpp"
#include "treefold/reducer_base.hpp"

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
class doubles_reducer : public reducer_base<Value, Exchange> {
public:
    /// Plans the sum over `layout` (collective; see treefold::reducer).
    doubles_reducer(comm_view comm, layout::block_layout layout, checking checks = checking::from_environment)
        : reducer_base<Value, Exchange>(comm.get(), std::move(layout), 1, checks)
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
        node_op op{local.data()};
        return this->template all_reduce_call<node_kernel>(nullptr, local.size(), op, [] { return Value{}; });
    }

    /// The sum on `root` only (nullopt elsewhere); as treefold::reducer::reduce.
    std::optional<double> reduce(std::span<const double> local, int root)
    {
        node_op op{local.data()};
        const std::optional<Value> out =
            this->template reduce_call<node_kernel>(nullptr, local.size(), op, root, [] { return Value{}; });
        return out ? std::optional<double>(settled<ops::plus>(out->to_double())) : std::nullopt;
    }

private:
    /// The operator the exchange sees: Merge, carrying where this call's doubles are.
    struct node_op {
        /// Order-free exactly when Merge is (detail/records.hpp).
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
};

} // namespace treefold::detail
