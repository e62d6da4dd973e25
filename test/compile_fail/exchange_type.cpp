// Must not compile: the exchange has a name but no plan.
#include "common.hpp"

namespace {
struct carrier_pigeon {
    static constexpr const char* name = "carrier_pigeon";
};
} // namespace

void refused(const boost::mpi::communicator& world, const treefold::layout::block_layout& layout)
{
    treefold::reducer<double, std::plus<double>, treefold::kernel::scalar, carrier_pigeon> r(world, layout);
}
