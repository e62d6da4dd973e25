// A program that uses only the core: reducer<double> with the default exchange (automatic),
// the one-call all_reduce, the accurate sum and the C API. Built against every component;
// its link map must hold no object of one (check_link_map.cmake).
#include <treefold/treefold.hpp>

#include <boost/mpi.hpp>

#include <vector>

int main(int argc, char** argv)
{
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    const std::vector<double> local(100, 1.0);
    treefold::reducer<double> sum(world, treefold::layout_from_local_size(world, local.size()));
    treefold::accurate_reducer<> accurate(world, treefold::layout_from_local_size(world, local.size()));
    double c = 0;
    treefold_allreduce(local.data(), &c, static_cast<int>(local.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum.all_reduce(local) + treefold::all_reduce(world, local) + accurate.all_reduce(local) + c > 0 ? 0 : 1;
}
