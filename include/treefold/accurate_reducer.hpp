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
#include "treefold/concepts.hpp"
#include "treefold/front_door/doubles_reducer.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/kernel/accurate.hpp"

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
/// Construction is collective and checks the layout as treefold::reducer does. The interface
/// (all_reduce, all_reduce_parts giving the double_double, reduce, ...) is
/// detail::doubles_reducer's, shared with binned_reducer.
template <class Kernel = kernel::accurate_best, exchange_policy<double_double> Exchange = exchange::automatic>
class accurate_reducer : public detail::doubles_reducer<double_double, Kernel, ops::accurate_plus, Exchange> {
public:
    using kernel_type = Kernel;     ///< the lifted-sum kernel
    using exchange_type = Exchange; ///< the exchange policy
    /// The constructors of detail::doubles_reducer: (comm, layout) and (comm, n, distribution).
    using detail::doubles_reducer<double_double, Kernel, ops::accurate_plus, Exchange>::doubles_reducer;
};

} // namespace treefold
