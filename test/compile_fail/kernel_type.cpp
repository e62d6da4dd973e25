// Must not compile: the kernel's function has the wrong name and signature.
#include "common.hpp"

namespace {
struct summer {
    static double sum(const double* first, std::uint64_t len);
};
} // namespace

void refused(const boost::mpi::communicator& world, const treefold::layout::block_layout& layout)
{
    treefold::reducer<double, std::plus<double>, summer> r(world, layout);
}
