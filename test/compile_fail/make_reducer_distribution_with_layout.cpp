// Must not compile: a distribution policy decides the blocks from N; with a layout there is
// nothing for it to decide.
#include "common.hpp"

void refused(const boost::mpi::communicator& world, const treefold::layout::block_layout& layout)
{
    auto r = treefold::make_reducer<double>(world, layout, treefold::dist::aligned{0.1});
}
