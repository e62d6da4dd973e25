// The main of every treefold test executable.
//
// MPI has to outlive Boost.Test: after the suites ran, all ranks agree on pass or fail with
// one collective, so a failure on any rank fails the run on every rank. That is why the
// boost::mpi::environment lives here, around unit_test_main, and the global fixture below
// only hands out the world communicator and labels each rank's log.
#define BOOST_TEST_MODULE treefold
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "support/mpi_test.hpp"

#include <boost/mpi.hpp>
#include <cstdio>
#include <functional>

namespace {

/// Global fixture: every rank announces itself once, so interleaved logs can be read.
struct mpi_world_fixture {
    mpi_world_fixture()
    {
        const auto& world = treefold::testing::world();
        if (world.rank() == 0) {
            BOOST_TEST_MESSAGE("treefold tests on " << world.size() << " rank(s)");
        }
    }
};

} // namespace

BOOST_TEST_GLOBAL_FIXTURE(mpi_world_fixture);

int main(int argc, char** argv)
{
    boost::mpi::environment env(argc, argv, boost::mpi::threading::single);
    const boost::mpi::communicator world;
    const int rc = boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
    const int failed_here = rc != 0 ? 1 : 0;
    const int failed_ranks = boost::mpi::all_reduce(world, failed_here, std::plus<int>());
    if (failed_here != 0) {
        std::fprintf(stderr, "treefold test: rank %d of %d FAILED\n", world.rank(), world.size());
    }
    if (world.rank() == 0) {
        std::printf("treefold test: %d of %d rank(s) failed\n", failed_ranks, world.size());
    }
    return failed_ranks == 0 ? 0 : 1;
}
