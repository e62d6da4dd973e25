// A user's program: sum 1000 values spread over the ranks and print the bits.
#include <treefold/treefold.hpp>

#include <boost/mpi.hpp>
#include <cstdio>
#include <vector>

int main(int argc, char** argv)
{
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    const std::uint64_t n = 1000;
    const auto counts = treefold::layout::even_lower(n, world.size());
    auto layout = treefold::layout::block_layout::from_counts(counts);
    std::vector<double> local(counts[world.rank()]);
    const auto start = layout.block_of(world.rank()).start;
    for (std::size_t i = 0; i < local.size(); ++i) {
        local[i] = 1.0 / static_cast<double>(start + i + 1);
    }
    treefold::reducer<double> sum(world, layout);
    const double total = sum.all_reduce(local);
    if (world.rank() == 0) {
        std::printf("consumer: sum of 1/i for i=1..1000 = %.17g\n", total);
    }
    return total > 7.48 && total < 7.49 ? 0 : 1;
}
