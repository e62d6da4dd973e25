// Must not compile: the generator's make returns a rank count, not a schedule.
#include "common.hpp"

namespace {
struct counting {
    static constexpr const char* name = "counting";
    static int make(int p) { return p; }
};
} // namespace

void refused(const boost::mpi::communicator& world, const treefold::layout::block_layout& layout)
{
    treefold::reducer<double, std::plus<double>, treefold::kernel::scalar, treefold::exchange::scheduled<counting>> r(
        world, layout);
}
