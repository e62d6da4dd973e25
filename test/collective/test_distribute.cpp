// Loading once and scattering once: collective::read_on_root and collective::scatter_blocks deliver every
// rank exactly its block for permuted layouts with empty blocks and any root, and their
// errors reach every rank (no rank waits in a collective alone).
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "treefold/collective/distribute.hpp"
#include "treefold/io/values_file.hpp"
#include "treefold/layout/block_layout.hpp"

#include <boost/mpi/collectives/broadcast.hpp>

#include <filesystem>
#include <string>
#include <unistd.h>

using namespace treefold;
namespace mpi = boost::mpi;

BOOST_AUTO_TEST_CASE(scatter_delivers_each_block_for_random_layouts_and_roots)
{
    const auto& world = testing::world();
    const int p = world.size();
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const std::uint64_t n = seed * 37 % 301;
        const auto l = testing::random_layout(seed, n, p);
        const int root = static_cast<int>(seed % static_cast<std::uint64_t>(p));
        std::vector<double> all;
        if (world.rank() == root) {
            all = testing::mixed_values(seed, n, false);
        }
        const auto mine = collective::scatter_blocks(world, all, l, root);
        const auto expected = testing::mixed_values(seed, n, false); // every rank can compute it
        const auto b = l.block_of(world.rank());
        bool ok = mine.size() == b.count;
        for (std::size_t i = 0; ok && i < mine.size(); ++i) {
            ok = testing::bits_of(mine[i]) == testing::bits_of(expected[b.start + i]);
        }
        BOOST_TEST(testing::all_ranks(world, ok), "seed " << seed << " n " << n << " root " << root);
    }
}

BOOST_AUTO_TEST_CASE(scatter_with_wrong_root_size_throws_on_every_rank)
{
    const auto& world = testing::world();
    const auto l = layout::block_layout::from_counts(layout::even_lower(10, world.size()));
    std::vector<double> all(world.rank() == 0 ? 9 : 0); // one value short, known to the root only
    BOOST_CHECK_THROW(collective::scatter_blocks(world, all, l), std::invalid_argument);
    // A layout for another rank count is refused by every rank before any communication.
    const auto wrong = layout::block_layout::from_counts(layout::even_lower(10, world.size() + 1));
    BOOST_CHECK_THROW(collective::scatter_blocks(world, all, wrong), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(scatter_of_blocks_beyond_one_mpi_count_throws_on_every_rank)
{
    // 2^31 values per rank: no MPI count can describe a block, and no memory is touched (the
    // layout is only counts; every rank refuses before the root's data size matters).
    const auto& world = testing::world();
    const std::vector<index_tree::index_t> counts(static_cast<std::size_t>(world.size()), index_tree::index_t{1} << 31);
    const auto huge = layout::block_layout::from_counts(counts);
    const std::vector<double> none;
    bool threw = false;
    try {
        collective::scatter_blocks(world, none, huge);
    } catch (const std::invalid_argument& e) {
        threw = std::string(e.what()).find("MPI count") != std::string::npos;
    }
    BOOST_TEST(testing::all_ranks(world, threw));
}

BOOST_AUTO_TEST_CASE(read_on_root_shares_n_and_errors)
{
    const auto& world = testing::world();
    std::string path;
    if (world.rank() == 0) {
        path = (std::filesystem::temp_directory_path() / ("treefold_read_on_root_" + std::to_string(::getpid()) + ".binpsllh"))
                   .string();
        io::write_binpsllh(path, testing::mixed_values(5, 123, false));
    }
    mpi::broadcast(world, path, 0);
    std::vector<double> all;
    const auto n = collective::read_on_root(world, path, all);
    BOOST_TEST(testing::all_ranks(world, n == 123));
    BOOST_TEST(testing::all_ranks(world, world.rank() == 0 ? all.size() == 123 : all.empty()));
    world.barrier();
    if (world.rank() == 0) {
        std::filesystem::remove(path);
    }
    world.barrier();
    // The file is gone: the root's read error must reach every rank as the same file_error.
    std::string message;
    try {
        collective::read_on_root(world, path, all);
    } catch (const io::file_error& e) {
        message = e.what();
    }
    std::string root_message = message;
    mpi::broadcast(world, root_message, 0);
    BOOST_TEST(testing::all_ranks(world, !message.empty() && message == root_message));
}
