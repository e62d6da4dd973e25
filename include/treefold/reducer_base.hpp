#pragma once
/// The one shell of treefold's reducers (reducer, row_reducer, dot_reducer, dots_reducer,
/// accurate_reducer, binned_reducer): the core they run on (front_door/reduction_core.hpp: the
/// private communicator, the checked layout, the plan, failures on every rank), the queries
/// every reducer answers, and the calls' common frame (N = 0 answered on every rank after
/// one agreement, the exchange otherwise). What a result looks like, and its canonical NaN,
/// stays each reducer's own.

#include "treefold/config.hpp"
#include "treefold/front_door/reduction_core.hpp"
#include "treefold/front_door/special_results.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/request.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace treefold {

namespace detail {
/// A reducer with no value for N = 0 (its operator has no ops::identity): the call goes to
/// the core, which throws std::domain_error on every rank.
struct no_empty_result {};
} // namespace detail

/// What every treefold reducer offers besides its calls; each reducer derives from it with
/// T the element the exchange moves (a value, a row, a double-double, ...).
template <class T, class Exchange>
class reducer_base {
public:
    /// The exchange this reducer runs (for exchange::automatic, the one it chose).
    std::string_view exchange_used() const { return core_.exchange_used(); }
    /// Messages and bytes this rank sent during the last call.
    const net::counters& last_counters() const { return core_.last_counters(); }
    /// The layout this reducer was planned for (of rows, for row_reducer).
    const layout::block_layout& layout() const { return core_.layout(); }
    /// Number of elements this rank passes (rows for row_reducer, values of each array for
    /// the dot reducers).
    std::uint64_t local_count() const { return core_.local_count(); }
    /// This rank's block of the global index: [start, start + count) (start is meaningless
    /// for an empty block).
    layout::block local_block() const { return core_.layout().block_of(core_.communicator().rank()); }
    /// The reducer's own (duplicated) communicator.
    const boost::mpi::communicator& communicator() const { return core_.communicator(); }

protected:
    /// Plans the core (collective): the arguments of detail::reduction_core.
    template <class... A>
    explicit reducer_base(A&&... core_args) : core_(std::forward<A>(core_args)...)
    {
    }

    /// The blocking call to every rank: `empty()` on every rank when N = 0 (after the ranks
    /// agree that nobody passed values), else the exchange. Empty is a callable giving T, or
    /// detail::no_empty_result.
    template <class Kernel, class Op, class Empty>
    T all_reduce_call(const T* local, std::size_t values, Op& op, const Empty& empty)
    {
        if constexpr (!std::is_same_v<Empty, detail::no_empty_result>) {
            if (core_.layout().size() == 0) {
                detail::agree_on_empty_call(core_.communicator(), values, -1, false);
                return empty();
            }
        }
        return core_.template all_reduce<Kernel>(local, values, op);
    }

    /// The blocking call to `root` (nullopt elsewhere), N = 0 as in all_reduce_call.
    template <class Kernel, class Op, class Empty>
    std::optional<T> reduce_call(const T* local, std::size_t values, Op& op, int root, const Empty& empty)
    {
        if constexpr (!std::is_same_v<Empty, detail::no_empty_result>) {
            if (core_.layout().size() == 0) {
                detail::agree_on_empty_call(core_.communicator(), values, root, true);
                return core_.communicator().rank() == root ? std::optional<T>(empty()) : std::nullopt;
            }
        }
        return core_.template reduce<Kernel>(local, values, op, root);
    }

    /// Starts the call to every rank (no root) or to `root`; `settle` shapes the result when
    /// it is waited for. N = 0 completes at once, as the blocking call.
    template <class R, class Kernel, class Op, class Empty>
    request<T, R> start_call(const T* local, std::size_t values, Op& op, std::optional<int> root, const Empty& empty,
                             void (*settle)(std::optional<T>&))
    {
        if constexpr (!std::is_same_v<Empty, detail::no_empty_result>) {
            if (core_.layout().size() == 0) {
                return root ? request<T, R>(reduce_call<Kernel>(local, values, op, *root, empty))
                            : request<T, R>(std::optional<T>(all_reduce_call<Kernel>(local, values, op, empty)));
            }
        }
        return request<T, R>(core_.template start<Kernel>(local, values, op, root), settle);
    }

    /// The private communicator, the layout, the plan; nonblocking calls on the native exchange.
    detail::reduction_core<T, Exchange, exchange::native> core_;
};

} // namespace treefold
