// Built by check_contraction.sh with the flags under test: a reducer whose operator (a 2x2
// matrix product) multiplies and adds, and a dot_reducer (whose kernels multiply, then add),
// must each refuse a translation unit that contracts (one line per reducer and rank). Both
// name the direct exchange: the refusal comes first in every reducer's constructor, before
// any exchange plans, and naming one exchange compiles in about 60 % of the time of automatic's
// five candidates (g++ -O2: 5.0 s against 8.8; the check compiles this file six times).
#include "treefold/dot_reducer.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/reducer.hpp"

#include <mpi.h>

#include <array>
#include <cstdio>
#include <stdexcept>

namespace {
using mat = std::array<double, 4>;
struct mat_mul {
    mat operator()(const mat& x, const mat& y) const
    {
        return {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2],
                x[2] * y[1] + x[3] * y[3]};
    }
};
} // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    try {
        treefold::reducer<mat, mat_mul, treefold::kernel::best, treefold::exchange::direct> r(MPI_COMM_WORLD, 8);
        std::puts("planned");
    } catch (const std::logic_error& e) {
        std::printf("refused: %s\n", e.what());
    }
    try {
        treefold::dot_reducer<treefold::kernel::dot_best, treefold::exchange::direct> d(MPI_COMM_WORLD, 8);
        std::puts("planned");
    } catch (const std::logic_error& e) {
        std::printf("refused: %s\n", e.what());
    }
    MPI_Finalize();
    return 0;
}
