#include "treefold/collective/distribute.hpp"
#include "treefold/io/values_file.hpp"

#include <boost/mpi/collectives/broadcast.hpp>
#include <mpi.h>

#include <climits>
#include <stdexcept>
#include <string>

namespace treefold::collective {

std::uint64_t read_on_root(comm_view comm, const std::filesystem::path& path,
                           std::vector<double>& all, int root)
{
    std::string error;
    std::uint64_t n = 0;
    if (comm.rank() == root) {
        try {
            all = io::read_values(path);
            n = all.size();
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    boost::mpi::broadcast(comm, error, root);
    if (!error.empty()) {
        throw io::file_error(error);
    }
    boost::mpi::broadcast(comm, n, root);
    return n;
}

std::vector<double> scatter_blocks(comm_view comm, const std::vector<double>& all,
                                   const layout::block_layout& layout, int root)
{
    // Every rank can check the layout itself; only the root knows the data's size, so its
    // verdict is broadcast before anything moves (no rank waits in scatterv alone).
    if (layout.ranks() != comm.size()) {
        throw std::invalid_argument("treefold: scatter_blocks: the layout has " + std::to_string(layout.ranks()) +
                                    " blocks for " + std::to_string(comm.size()) + " ranks");
    }
    std::vector<int> sizes(static_cast<std::size_t>(comm.size()));
    std::vector<int> displs(sizes.size());
    for (int r = 0; r < comm.size(); ++r) {
        const auto& b = layout.block_of(r);
        if (b.count > static_cast<std::uint64_t>(INT_MAX) || (b.count > 0 && b.start > static_cast<std::uint64_t>(INT_MAX))) {
            throw std::invalid_argument("treefold: scatter_blocks: block of rank " + std::to_string(r) +
                                        " lies beyond one MPI count (2^31 - 1 values)");
        }
        sizes[static_cast<std::size_t>(r)] = static_cast<int>(b.count);
        displs[static_cast<std::size_t>(r)] = b.count > 0 ? static_cast<int>(b.start) : 0;
    }
    std::string error;
    if (comm.rank() == root && all.size() != layout.size()) {
        error = "treefold: scatter_blocks: the root holds " + std::to_string(all.size()) + " values, the layout covers " +
                std::to_string(layout.size());
    }
    boost::mpi::broadcast(comm, error, root);
    if (!error.empty()) {
        throw std::invalid_argument(error);
    }
    std::vector<double> mine(layout.block_of(comm.rank()).count);
    const int my_size = static_cast<int>(mine.size());
    // Raw MPI: Boost.MPI 1.74's non-root scatterv dereferences its null input pointer to find
    // the datatype (undefined behaviour, UBSan aborts the sanitizer build's CLI).
    const double* from = comm.rank() == root ? all.data() : nullptr;
    if (MPI_Scatterv(from, sizes.data(), displs.data(), MPI_DOUBLE, mine.data(), my_size, MPI_DOUBLE, root,
                     static_cast<MPI_Comm>(comm.get())) != MPI_SUCCESS) {
        throw std::runtime_error("treefold: scatter_blocks: MPI_Scatterv failed");
    }
    return mine;
}

} // namespace treefold::collective
