// Value files (io/values_file.hpp): binary .binpsllh and text files round-trip, and bad files
// (missing, short, lying about N, a non-numeric line) throw io::file_error naming the problem.
// (The shared data sets' published tree-sum bits are checked in test/conformance.)
#include <boost/test/unit_test.hpp>

#include "support/mpi_test.hpp"
#include "treefold/io/values_file.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace treefold;

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
