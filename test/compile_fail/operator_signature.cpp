// Must not compile: the operator takes one operand (the reducer needs T(const T&, const T&)).
#include "common.hpp"

void refused(const boost::mpi::communicator& world, const treefold::layout::block_layout& layout)
{
    auto negate = [](const double& a) { return -a; };
    treefold::reducer<double, decltype(negate)> r(world, layout, negate);
}
