// Must not compile: the shape has a root but no parent, children, height or fold direction.
#include "common.hpp"

namespace {
struct flat {
    static constexpr const char* name = "flat";
    static int root(int /*p*/) { return 0; }
};
} // namespace

double refused(const boost::mpi::communicator& world)
{
    return treefold::collective::tree_all_reduce<flat>(world, 1.0, std::plus<double>{});
}
