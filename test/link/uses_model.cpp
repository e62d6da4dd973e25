// The control for check_link_map.cmake: a program that does use a component (the model's
// schedule search, through the model_exchanges of the registry) must show its objects.
#include <treefold/all_exchanges.hpp>
#include <treefold/reducer.hpp>

#include <boost/mpi.hpp>

#include <vector>

int main(int argc, char** argv)
{
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    const std::vector<double> local(100, 1.0);
    treefold::reducer<double, treefold::ops::plus, treefold::kernel::best,
                      treefold::exchange::scheduled<treefold::model::schedules::best_sized>>
        sum(world, treefold::layout_from_local_size(world, local.size()));
    return sum.all_reduce(local) > 0 ? 0 : 1;
}
