// A user's program that initialises MPI itself (Boost.MPI's environment, no treefold main),
// for check_wrong_launcher.sh: started by the other MPI's launcher, each process is alone in
// MPI_COMM_WORLD and the reducer's construction throws, naming the launcher and the fix;
// started by its own launcher, the sum is right.
#include "treefold/reducer.hpp"

#include <boost/mpi/environment.hpp>

#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char** argv)
{
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    try {
        treefold::reducer<double> r(world, 100);
        const std::vector<double> mine(r.local_count(), 1.0);
        return r.all_reduce(mine) == 100.0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 3;
    }
}
