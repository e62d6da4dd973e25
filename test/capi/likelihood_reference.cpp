// The C++ side of test/capi/likelihood_shape.c: the same evaluations through
// treefold::reducer<double> directly, for the bits the C API must reproduce.
#include "likelihood_shape.h"

#include <treefold/reducer.hpp>

#include <cstdio>
#include <exception>
#include <vector>

extern "C" int likelihood_reference(MPI_Comm comm, int part, double* out)
{
    try {
        int rank = 0;
        int size = 0;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        std::vector<treefold::layout::block> blocks(static_cast<std::size_t>(size));
        for (int r = 0; r < size; ++r) {
            std::int64_t start = 0;
            std::int64_t count = 0;
            likelihood_block(part, r, size, &start, &count);
            blocks[static_cast<std::size_t>(r)] = {static_cast<std::uint64_t>(start), static_cast<std::uint64_t>(count)};
        }
        treefold::reducer<double> sum(comm, treefold::layout::block_layout::from_blocks(blocks));
        const auto mine = blocks[static_cast<std::size_t>(rank)];
        std::vector<double> site(mine.count);
        for (int e = 0; e < LIKELIHOOD_EVALUATIONS; ++e) {
            for (std::uint64_t i = 0; i < mine.count; ++i) {
                site[i] = likelihood_site(part, e, static_cast<std::int64_t>(mine.start + i));
            }
            out[e] = sum.all_reduce(site);
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "likelihood_reference: %s\n", e.what());
        return 1;
    }
}
