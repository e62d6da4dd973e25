// A suite of one case run by the test kit's main (treefold::testing, src/testing/mpi_main.cpp),
// for check_wrong_launcher.sh: started by another MPI's launcher, the main refuses before
// MPI_Init; started by its own, the case runs.
#include "treefold/testing/mpi_test.hpp"

BOOST_AUTO_TEST_CASE(the_world_is_there)
{
    BOOST_TEST(treefold::testing::world().size() >= 1);
}
