#pragma once
/// What treefold::reducer and treefold::row_reducer share: the private communicator, the
/// checked layout, the exchange plan, and the steps after the exchange (broadcast for
/// all_reduce, delivery to the root for reduce, the one mapping of failures to exceptions).

#include "treefold/collective/layout_agreement.hpp"
#include "treefold/error.hpp"
#include "treefold/exchange/outcome.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/net/transport.hpp"
#include "treefold/net/tree_walk.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <utility>

namespace treefold::detail {

/// One reduction of elements of type T along `Exchange` (see treefold::reducer for the
/// contract). `width` values of the caller's span make one element (row_reducer's rows).
template <class T, class Exchange>
class reduction_core {
public:
    using plan_type = typename Exchange::template plan<T>;

    /// Collective: duplicates `comm`, checks that every rank holds the same layout (and a
    /// positive width), then plans the exchange.
    reduction_core(const boost::mpi::communicator& comm, layout::block_layout layout, std::size_t width = 1)
        : comm_(comm, boost::mpi::comm_duplicate),
          layout_(verified(comm_, std::move(layout), width)),
          width_(width),
          plan_(comm_, layout_)
    {
    }

    /// The reduction on every rank. `local` is what the plan indexes by element; `values` is
    /// the length of the caller's span (checked against the block).
    template <class Kernel, class Op>
    T all_reduce(const T* local, std::size_t values, Op& op)
    {
        exchange::outcome<T> out = run<Kernel>(local, values, op);
        if constexpr (!exchange::result_everywhere_plan<plan_type>) {
            if (!out.value) {
                out.value.emplace(); // where the broadcast puts the result
            }
            net::values_channel<T> result{comm_, last_, &*out.value, 1};
            net::broadcast(result, comm_.size(), comm_.rank(), plan_.finisher(), out.failed);
        }
        throw_if_failed(out.failed, own_error_);
        return std::move(*out.value);
    }

    /// The reduction on `root` only (nullopt elsewhere).
    template <class Kernel, class Op>
    std::optional<T> reduce(const T* local, std::size_t values, Op& op, int root)
    {
        check_root(root, comm_.size());
        exchange::outcome<T> out = run<Kernel>(local, values, op);
        const int me = comm_.rank();
        const int from = exchange::result_everywhere_plan<plan_type> ? root : plan_.finisher();
        if (me == root && !out.value) {
            out.value.emplace();
        }
        net::values_channel<T> result{comm_, last_, out.value ? &*out.value : nullptr, 1};
        net::deliver(result, me, from, root, out.failed);
        throw_if_failed(out.failed, own_error_);
        if (me != root) {
            return std::nullopt;
        }
        return std::move(out.value);
    }

    /// Elements this rank holds.
    std::uint64_t local_count() const { return layout_.block_of(comm_.rank()).count; }
    const layout::block_layout& layout() const { return layout_; }
    const boost::mpi::communicator& communicator() const { return comm_; }
    const net::counters& last_counters() const { return last_; }
    const plan_type& plan() const { return plan_; }

private:
    static layout::block_layout verified(const boost::mpi::communicator& comm, layout::block_layout l,
                                         std::size_t width)
    {
        verify_same_layout(comm, l);
        if (width == 0) {
            throw std::invalid_argument("treefold: row width must be positive");
        }
        return l;
    }

    template <class Kernel, class Op>
    exchange::outcome<T> run(const T* local, std::size_t values, Op& op)
    {
        last_ = {};
        own_error_ = nullptr;
        if (layout_.size() == 0) {
            throw std::domain_error("treefold: reduction of N = 0 values has no result");
        }
        std::optional<failure> failed;
        if (values != local_count() * width_) {
            failed = failure::local_size(comm_.rank(), values, local_count() * width_);
        }
        return plan_.template run<Kernel>(local, op, failed, last_, own_error_);
    }

    boost::mpi::communicator comm_;
    layout::block_layout layout_;
    std::size_t width_;
    plan_type plan_;
    net::counters last_;
    std::exception_ptr own_error_;
};

} // namespace treefold::detail
