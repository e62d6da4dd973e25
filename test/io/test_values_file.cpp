// Value files (io/values_file.hpp): binary .binpsllh and text files round-trip, and bad files
// (missing, short, lying about N, a non-numeric line, a FIFO, binary data, a number out of
// range) throw io::file_error naming the problem.
// (The shared data sets' published tree-sum bits are checked in test/conformance.)
#include <boost/test/unit_test.hpp>

#include "support/mpi_test.hpp"
#include "treefold/io/values_file.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
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

namespace {

/// The message of the io::file_error that `read` throws, or "" when it throws none.
template <class Read>
std::string error_of(Read&& read)
{
    try {
        read();
    } catch (const io::file_error& e) {
        return e.what();
    }
    return "";
}

} // namespace

// What an audit fed the readers (issue 16): a FIFO blocked open() for ever, 1e400 became
// infinity, a NUL byte cut the message short; binary data deserves its own message.
BOOST_AUTO_TEST_CASE(hostile_files_are_refused_with_a_whole_message)
{
    const auto& w = testing::world();
    const auto dir = std::filesystem::temp_directory_path() /
                     ("treefold-io2-" + std::to_string(::getpid()) + "-" + std::to_string(w.rank()));
    std::filesystem::create_directories(dir);
    {
        std::ofstream(dir / "big.txt") << "1\n-1e400\n";
        std::ofstream(dir / "small.txt") << "1e-400\n4e-320\ninf\n";
        std::ofstream f(dir / "nul.txt", std::ios::binary);
        f.write("1\n2\0003\n", 6);
        std::ofstream(dir / "digits.txt") << std::string(100000, '9') << "\n";
        std::ofstream(dir / "word.txt") << std::string(100000, 'x') << "\n";
    }
    BOOST_REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
    // Returns at once (no writer will ever open the FIFO) and says what it is.
    BOOST_TEST(error_of([&] { io::read_values(dir / "fifo"); }).find("is a FIFO (named pipe), not a regular file") !=
               std::string::npos);
    BOOST_TEST(error_of([] { io::read_values("/dev/null"); }).find("is a character device") != std::string::npos);
    BOOST_TEST(error_of([&] { io::read_values(dir / "big.txt"); }) ==
               "treefold: '" + (dir / "big.txt").string() +
                   "' line 2: '-1e400' is out of the range of a double (largest magnitude about 1.8e308)");
    // Underflow rounds as usual, and a written infinity is a value.
    const auto small = io::read_values(dir / "small.txt");
    BOOST_REQUIRE_EQUAL(small.size(), 3u);
    BOOST_TEST(small[0] == 0.0);
    BOOST_TEST(small[1] > 0.0);
    BOOST_TEST(std::isinf(small[2]));
    const std::string nul = error_of([&] { io::read_values(dir / "nul.txt"); });
    BOOST_TEST(nul.find("line 2: binary data (byte 0x00 at column 2)") != std::string::npos);
    BOOST_TEST(nul.ends_with("needs its .binpsllh extension"));
    // A huge line is quoted in part, with its length.
    const std::string digits = error_of([&] { io::read_values(dir / "digits.txt"); });
    BOOST_TEST(digits.find("... (100000 characters)' is out of the range") != std::string::npos);
    BOOST_TEST(digits.size() < 300u);
    BOOST_TEST(error_of([&] { io::read_values(dir / "word.txt"); }).find("(100000 characters)' is not a number") !=
               std::string::npos);
    BOOST_TEST(io::printable_excerpt(std::string("a\0b\x7f", 4)) == "a\\x00b\\x7F");
    BOOST_TEST(io::printable_excerpt("abcdef", 3) == "abc... (6 characters)");
    std::filesystem::remove_all(dir);
}
