// A user's program on the collective component (find_package(treefold COMPONENTS collective)):
// a rank-ordered tree all-reduce of one value per rank.
#include <treefold/collective/tree_reduce.hpp>

#include <boost/mpi.hpp>
#include <cstdio>
#include <functional>

int main(int argc, char** argv)
{
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    const int total = treefold::collective::tree_all_reduce<treefold::topology::binomial>(world, world.rank() + 1, std::plus<int>());
    if (world.rank() == 0) {
        std::printf("consumer_collective: %d\n", total);
    }
    return total == world.size() * (world.size() + 1) / 2 ? 0 : 1;
}
