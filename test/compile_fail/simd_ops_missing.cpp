// Must not compile: a treefold operator on std::uint64_t (no precompiled kernel) may run on
// SIMD batches, whose kernel is in treefold/kernel/simd_ops.hpp, which this file lacks.
#include "common.hpp"

std::uint64_t refused(const boost::mpi::communicator& world, const treefold::layout::block_layout& layout,
                      const std::vector<std::uint64_t>& local)
{
    treefold::reducer<std::uint64_t> r(world, layout);
    return r.all_reduce(local);
}
