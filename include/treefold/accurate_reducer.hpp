#pragma once
/// The accurate reproducible sum of doubles: treefold's fixed tree over the values lifted to
/// double-doubles and added with ops::accurate_plus (kernel/accurate.hpp), the result rounded
/// back to double. The same bits for every process count, layout and exchange, and within
/// one ulp of the correctly rounded sum unless the sum is very ill-conditioned (see
/// kernel/accurate.hpp for the bound).
///
///     treefold::accurate_reducer<> r(comm, n);
///     double s = r.all_reduce(local); // local: this rank's r.local_count() doubles

#include "treefold/config.hpp"
#include "treefold/comm_view.hpp"
#include "treefold/concepts.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/kernel/accurate.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/layout/distribution.hpp"
#include "treefold/reduction_core.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

namespace treefold {

/// Sums N doubles spread over the ranks of a communicator in blocks, accurately and
/// reproducibly (see the file comment). The doubles are read in place: each node of the
/// tree is computed as a double-double straight from them (the lifted values are never
/// stored), and frontiers travel as double_double (16 bytes).
///
/// - Kernel: the lifted-sum kernel (kernel::accurate_best: the SIMD one of the best
///   architecture the CPU supports; kernel::accurate_scalar is the reference). All give
///   the same bits.
/// - Exchange: as for treefold::reducer (exchange::automatic by default).
///
/// Construction is collective and checks the layout as treefold::reducer does. The plans
/// index the local block by element, so the reducer reserves (but never touches) one
/// double_double of address space per local value.
template <class Kernel = kernel::accurate_best, exchange_policy<double_double> Exchange = exchange::automatic>
class accurate_reducer {
public:
    using kernel_type = Kernel;     ///< the lifted-sum kernel
    using exchange_type = Exchange; ///< the exchange policy

    /// Plans the sum over `layout` (collective; see treefold::reducer).
    accurate_reducer(comm_view comm, layout::block_layout layout, checking checks = checking::from_environment)
        : core_(comm.get(), std::move(layout), 1, checks),
          anchors_(std::make_unique_for_overwrite<double_double[]>(core_.local_count()))
    {
    }

    /// Plans the sum of N values in blocks in rank order decided by `distribution`
    /// (dist::even_upper by default); each rank then passes local_count() values.
    template <layout::distribution_policy Distribution = dist::even_upper>
    accurate_reducer(comm_view comm, std::uint64_t n, Distribution distribution = {})
        : accurate_reducer(comm, layout::block_layout::from_counts(distribution.counts(n, comm.get().size())))
    {
    }

    /// The sum of all N values rounded to double, on every rank (the same bits everywhere).
    /// Collective; errors as treefold::reducer::all_reduce (a span of the wrong size:
    /// std::invalid_argument on every rank; N = 0: std::domain_error).
    double all_reduce(std::span<const double> local) { return all_reduce_parts(local).to_double(); }

    /// The sum as the double-double the tree computed, before rounding (the same checks).
    double_double all_reduce_parts(std::span<const double> local)
    {
        lifted_op op{local.data(), anchors_.get()};
        return core_.template all_reduce<lifted_kernel>(anchors_.get(), local.size(), op);
    }

    /// The sum on `root` only (nullopt elsewhere); as treefold::reducer::reduce.
    std::optional<double> reduce(std::span<const double> local, int root)
    {
        lifted_op op{local.data(), anchors_.get()};
        const std::optional<double_double> out = core_.template reduce<lifted_kernel>(anchors_.get(), local.size(), op, root);
        return out ? std::optional<double>(out->to_double()) : std::nullopt;
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
    /// The operator the exchange sees: accurate_plus, carrying where this call's doubles are.
    struct lifted_op {
        const double* data;           // this call's local values
        const double_double* anchors; // anchors[i] stands for local value i
        double_double operator()(const double_double& a, const double_double& b) const noexcept
        {
            return ops::accurate_plus{}(a, b);
        }
    };

    /// Kernel policy for the plans: the node's doubles through Kernel.
    struct lifted_kernel {
        template <class Op>
        static double_double reduce_node(const double_double* first, std::uint64_t len, Op& op)
        {
            return Kernel::sum(op.data + (first - op.anchors), len);
        }
    };

    detail::reduction_core<double_double, Exchange> core_;
    std::unique_ptr<double_double[]> anchors_;
};

} // namespace treefold
