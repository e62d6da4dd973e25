#pragma once
/// Helpers for MPI tests: the world communicator, runs on sub-communicators of every size,
/// byte-exact comparison of results, and agreement of a check across ranks.

#include <boost/mpi.hpp>
#include <boost/serialization/vector.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace treefold::testing {

/// The world communicator (valid once main has built the MPI environment).
inline const boost::mpi::communicator& world()
{
    static const boost::mpi::communicator w;
    return w;
}

/// The object representation of a trivially copyable value, for bit comparisons.
template <class T>
std::vector<unsigned char> bytes_of(const T& value)
{
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<unsigned char> out(sizeof(T));
    std::memcpy(out.data(), &value, sizeof(T));
    return out;
}

/// The 64-bit pattern of a double (what the data sets' reference files list).
inline std::uint64_t bits_of(double v)
{
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

/// True on every rank iff `ok` is true on every rank of `comm`.
inline bool all_ranks(const boost::mpi::communicator& comm, bool ok)
{
    return boost::mpi::all_reduce(comm, ok ? 1 : 0, boost::mpi::minimum<int>()) == 1;
}

/// Runs `body(sub)` on a sub-communicator of every size 1..world size (ranks 0..k-1 of the
/// world). `body` returns the bytes of its result; element k-1 of the returned vector is what
/// world rank 0 computed at size k, the same on every world rank, so every rank can check it.
template <class Body>
std::vector<std::vector<unsigned char>> on_every_size(Body&& body)
{
    const auto& w = world();
    std::vector<std::vector<unsigned char>> results;
    for (int k = 1; k <= w.size(); ++k) {
        const bool member = w.rank() < k;
        const boost::mpi::communicator sub = w.split(member ? 0 : 1);
        std::vector<unsigned char> mine;
        if (member) {
            mine = body(sub);
        }
        boost::mpi::broadcast(w, mine, 0);
        results.push_back(std::move(mine));
    }
    return results;
}

/// Index of the first result that differs from results[0], or nullopt when all are equal.
inline std::optional<std::size_t> first_mismatch(const std::vector<std::vector<unsigned char>>& r)
{
    for (std::size_t i = 1; i < r.size(); ++i) {
        if (r[i] != r[0]) {
            return i;
        }
    }
    return std::nullopt;
}

/// Checks (Boost.Test) that the results of on_every_size agree at every size, naming the first
/// size that differs from p = 1.
inline void expect_same_across_sizes(const std::vector<std::vector<unsigned char>>& results, const char* what)
{
    const auto bad = first_mismatch(results);
    BOOST_CHECK_MESSAGE(!bad, what << ": results at p = " << (bad ? *bad + 1 : 0) << " differ from p = 1");
}

/// The shared data sets (../shared/data/psllh beside the project), or nullopt when absent.
inline std::optional<std::filesystem::path> psllh_dir()
{
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    if (const char* src = std::getenv("TREEFOLD_SOURCE_DIR")) {
        candidates.push_back(fs::path(src) / ".." / "shared" / "data" / "psllh");
    }
#ifdef TREEFOLD_SHARED_DIR
    candidates.push_back(fs::path(TREEFOLD_SHARED_DIR) / "data" / "psllh");
#endif
    for (const auto& c : candidates) {
        std::error_code ec;
        if (fs::is_directory(c, ec)) {
            return fs::canonical(c, ec);
        }
    }
    return std::nullopt;
}

/// psllh_dir(), saying in the test log that the data-set check is skipped when it is absent.
inline std::optional<std::filesystem::path> psllh_dir_or_skip()
{
    auto dir = psllh_dir();
    if (!dir) {
        BOOST_TEST_MESSAGE("SKIPPED: ../shared/data/psllh not found; the data-set check did not run");
    }
    return dir;
}

/// The published tree-sum bits of the data sets in `dir` (reference_tree_sum.csv: file,bits in hex).
inline std::map<std::string, std::uint64_t> reference_bits(const std::filesystem::path& dir)
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

} // namespace treefold::testing
