// A Makefile user's program, built with `pkg-config --cflags --libs treefold-cxx` only.
#include <treefold/reducer.hpp>

#include <boost/mpi/environment.hpp>
#include <cstdio>
#include <vector>

int main(int argc, char** argv)
{
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    const auto counts = treefold::layout::even_lower(100, world.size());
    const auto layout = treefold::layout::block_layout::from_counts(counts);
    const auto start = layout.block_of(world.rank()).start;
    std::vector<double> local(counts[static_cast<std::size_t>(world.rank())]);
    for (std::size_t i = 0; i < local.size(); ++i) {
        local[i] = static_cast<double>(start + i + 1);
    }
    treefold::reducer<double> sum(world, layout);
    const double total = sum.all_reduce(local);
    if (world.rank() == 0) {
        std::printf("treefold %s: sum of 1..100 = %.17g\n", TREEFOLD_VERSION_STRING, total);
    }
    return total == 5050.0 ? 0 : 1;
}
