// The shared per-site log-likelihood data sets reproduce their reference tree-sum bits at
// every process count, with both exchanges and several layouts. Skips where ../shared is absent.
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/io/values_file.hpp"
#include "treefold/layout/distribution.hpp"
#include "treefold/reducer.hpp"

#include <cstdio>
#include <unistd.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace treefold;
namespace mpi = boost::mpi;

namespace {

std::map<std::string, std::uint64_t> reference_bits(const std::filesystem::path& dir)
{
    std::map<std::string, std::uint64_t> out;
    std::ifstream in(dir / "reference_tree_sum.csv");
    std::string line;
    while (std::getline(in, line)) {
        const auto comma = line.find(',');
        if (comma == std::string::npos || line.compare(0, 4, "file") == 0) {
            continue;
        }
        out[line.substr(0, comma)] = std::stoull(line.substr(comma + 1), nullptr, 16);
    }
    return out;
}

template <class E>
double reduce_with(const mpi::communicator& comm, const std::vector<double>& xs, const layout::block_layout& l)
{
    reducer<double, std::plus<double>, kernel::scalar, E> r(comm, l);
    const auto b = l.block_of(comm.rank());
    return r.all_reduce(std::span<const double>(xs.data() + b.start, b.count));
}

} // namespace

BOOST_AUTO_TEST_CASE(reference_bits_at_every_p)
{
    const auto dir = testing::psllh_dir();
    if (!dir) {
        BOOST_TEST_MESSAGE("SKIPPED: ../shared/data/psllh not found");
        BOOST_CHECK(true);
        return;
    }
    const auto refs = reference_bits(*dir);
    BOOST_CHECK_EQUAL(refs.size(), 4u);
    for (const auto& entry : refs) {
        const std::string file = entry.first; // named copies: clang 14 cannot capture bindings
        const std::uint64_t want = entry.second;
        const auto xs = io::read_binpsllh(*dir / file);
        // The oracle itself must reproduce the published bits, or the test is wrong.
        BOOST_CHECK_EQUAL(testing::bits_of(testing::oracle_reduce(xs, std::plus<double>())), want);
        const auto results = testing::on_every_size([&](const mpi::communicator& sub) {
            std::vector<unsigned char> all;
            const layout::block_layout layouts[] = {
                layout::block_layout::from_counts(layout::even_lower(xs.size(), sub.size())),
                layout::block_layout::from_counts(layout::aligned(xs.size(), sub.size(), 0.5)),
                testing::random_layout(xs.size() + static_cast<std::uint64_t>(sub.size()), xs.size(), sub.size())};
            for (const auto& l : layouts) {
                for (const double v : {reduce_with<exchange::direct>(sub, xs, l), reduce_with<exchange::tree<>>(sub, xs, l)}) {
                    BOOST_CHECK_MESSAGE(testing::bits_of(v) == want, file << " at p = " << sub.size() << " gives other bits");
                    const auto b = testing::bytes_of(v);
                    all.insert(all.end(), b.begin(), b.end());
                }
            }
            return all;
        });
        BOOST_CHECK(!testing::first_mismatch(results));
    }
}

BOOST_AUTO_TEST_CASE(large_data_sets_agree_with_the_oracle_at_every_p)
{
    const auto dir = testing::psllh_dir();
    if (!dir) {
        BOOST_TEST_MESSAGE("SKIPPED: ../shared/data/psllh not found");
        BOOST_CHECK(true);
        return;
    }
    for (const char* file : {"dna_rokasD4.binpsllh", "aa_rokasA8.binpsllh"}) {
        if (!std::filesystem::exists(*dir / file)) {
            BOOST_TEST_MESSAGE("SKIPPED: " << file << " not found");
            continue;
        }
        const auto xs = io::read_binpsllh(*dir / file);
        const auto want = testing::bits_of(testing::oracle_reduce(xs, std::plus<double>()));
        const auto results = testing::on_every_size([&](const mpi::communicator& sub) {
            const auto l = layout::block_layout::from_counts(layout::even_lower(xs.size(), sub.size()));
            const double v = reduce_with<exchange::direct>(sub, xs, l);
            BOOST_CHECK_MESSAGE(testing::bits_of(v) == want, file << " at p = " << sub.size() << " differs from the oracle");
            return testing::bytes_of(v);
        });
        BOOST_CHECK(!testing::first_mismatch(results));
    }
}

BOOST_AUTO_TEST_CASE(reading_bad_files_names_the_problem)
{
    const auto& w = testing::world();
    const auto dir = std::filesystem::temp_directory_path() / ("treefold-io-" + std::to_string(::getpid()) + "-" + std::to_string(w.rank()));
    std::filesystem::create_directories(dir);
    io::write_binpsllh(dir / "ok.binpsllh", {1.0, 2.0, 3.0});
    BOOST_CHECK(io::read_values(dir / "ok.binpsllh") == (std::vector<double>{1.0, 2.0, 3.0}));
    {
        std::ofstream(dir / "short.binpsllh", std::ios::binary) << "abc";
        std::ofstream f(dir / "lying.binpsllh", std::ios::binary);
        const std::uint64_t n = 5;
        const double v = 1.0;
        f.write(reinterpret_cast<const char*>(&n), 8);
        f.write(reinterpret_cast<const char*>(&v), 8);
        std::ofstream(dir / "text.txt") << "1.5\n  -2e3 \n\nnan\n";
        std::ofstream(dir / "bad.txt") << "1.5\n2.5x\n";
    }
    BOOST_CHECK_THROW(io::read_values(dir / "missing.binpsllh"), io::file_error);
    BOOST_CHECK_THROW(io::read_values(dir / "short.binpsllh"), io::file_error);
    BOOST_CHECK_THROW(io::read_values(dir / "lying.binpsllh"), io::file_error);
    const auto text = io::read_values(dir / "text.txt");
    BOOST_CHECK_EQUAL(text.size(), 3u);
    try {
        io::read_values(dir / "bad.txt");
        BOOST_ERROR("a non-numeric line was accepted");
    } catch (const io::file_error& e) {
        BOOST_CHECK(std::string(e.what()).find("line 2") != std::string::npos);
    }
    std::filesystem::remove_all(dir);
}
