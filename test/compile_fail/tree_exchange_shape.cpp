// Must not compile: exchange::tree over a shape that is not one.
#include "common.hpp"

namespace {
struct flat {
    static constexpr const char* name = "flat";
    static int root(int /*p*/) { return 0; }
};
} // namespace

void refused(const boost::mpi::communicator& world, const treefold::layout::block_layout& layout)
{
    treefold::reducer<double, std::plus<double>, treefold::kernel::scalar, treefold::exchange::tree<flat>> r(world,
                                                                                                         layout);
}
