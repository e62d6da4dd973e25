// A user's program with plain MPI: the one-call reduction on MPI_COMM_WORLD, a reducer from N
// made by make_reducer, and the check that both give the same bits.
#include <treefold/all_reduce.hpp>
#include <treefold/reducer.hpp>

#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <span>
#include <vector>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const std::uint64_t n = 1000;
    auto r = treefold::make_reducer<double>(MPI_COMM_WORLD, n, treefold::dist::aligned{0.2},
                                            [](double a, double b) { return a + b; });
    const treefold::layout::block mine = r.local_block();
    std::vector<double> local(mine.count);
    for (std::size_t i = 0; i < local.size(); ++i) {
        local[i] = 1.0 / static_cast<double>(mine.start + i + 1);
    }
    const double planned = r.all_reduce(local);
    const double one_call = treefold::all_reduce(MPI_COMM_WORLD, local);
    const bool same = std::memcmp(&planned, &one_call, sizeof planned) == 0;
    if (rank == 0) {
        std::printf("consumer (plain MPI): sum of 1/i for i=1..1000 = %.17g, one-call %s\n", one_call,
                    same ? "same bits" : "DIFFERENT bits");
    }
    MPI_Finalize();
    return same && one_call > 7.48 && one_call < 7.49 ? 0 : 1;
}
