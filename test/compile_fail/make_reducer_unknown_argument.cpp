// Must not compile: make_reducer's arguments after `where` name its axes; a string is none.
#include "common.hpp"

void refused(const boost::mpi::communicator& world, const treefold::layout::block_layout& layout)
{
    auto r = treefold::make_reducer<double>(world, layout, treefold::exchange::tree<>{}, std::string("fast"));
}
