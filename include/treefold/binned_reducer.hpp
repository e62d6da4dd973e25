#pragma once
/// The binned reproducible sum of doubles: each rank deposits its block into a binned
/// accumulator (kernel/binned.hpp) linearly, in SIMD lanes, and the accumulators merge with
/// ops::binned_plus along treefold's tree. The merge is exactly associative, so the result
/// has the same bits for every process count, layout, exchange and kernel, like
/// accurate_reducer's; its error bound depends on max|x_i| instead of the tree's depth (see
/// kernel/binned.hpp).
///
///     treefold::binned_reducer<> r(comm, n);
///     double s = r.all_reduce(local); // local: this rank's r.local_count() doubles

#include "treefold/config.hpp"
#include "treefold/concepts.hpp"
#include "treefold/front_door/doubles_reducer.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/kernel/binned.hpp"

namespace treefold {

/// Sums N doubles spread over the ranks of a communicator in blocks, accurately and
/// reproducibly with a K-fold binned accumulator (see the file comment). The doubles are
/// read in place: each node of the rank's part of the tree is one linear deposit of its
/// values, and frontiers travel as binned<K> (16 K + 16 bytes). The interface is
/// accurate_reducer's (detail::doubles_reducer), all_reduce_parts giving the binned<K>.
///
/// - K: 3 (default; error 2^-79 N max|x_i| plus one ulp) or 2 (2^-39 N max|x_i|).
/// - Kernel: kernel::binned_best<K> (the SIMD one of the best architecture the CPU supports;
///   kernel::binned_scalar<K> is the reference). All give the same bits.
/// - Exchange: as for treefold::reducer (exchange::automatic by default).
///
/// Construction is collective and checks the layout as treefold::reducer does.
template <int K = 3, class Kernel = kernel::binned_best<K>, exchange_policy<binned<K>> Exchange = exchange::automatic>
class binned_reducer : public detail::doubles_reducer<binned<K>, Kernel, ops::binned_plus, Exchange> {
public:
    using value_type = binned<K>;   ///< the accumulator
    using kernel_type = Kernel;     ///< the deposit kernel
    using exchange_type = Exchange; ///< the exchange policy
    /// The constructors of detail::doubles_reducer: (comm, layout) and (comm, n, distribution).
    using detail::doubles_reducer<binned<K>, Kernel, ops::binned_plus, Exchange>::doubles_reducer;
};

} // namespace treefold
