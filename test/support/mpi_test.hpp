#pragma once
/// The project's suites: the installed MPI test kit (treefold/testing/mpi_test.hpp) plus what
/// only this project needs: the shared data sets, and cases dealt out over the ranks.

#include "treefold/testing/mpi_test.hpp"

#include <boost/mpi.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <vector>

namespace treefold::testing {

/// True on the rank that checks case `k` of a per-process sweep dealt out over world() (case k
/// to rank k mod p): every case runs once at any p, and p ranks share the work instead of each
/// repeating it.
inline bool dealt_here(std::uint64_t k)
{
    return k % static_cast<std::uint64_t>(world().size()) == static_cast<std::uint64_t>(world().rank());
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

/// The messages rank `me` sends in the reducers' binomial broadcast of a result from `root`
/// over p ranks (net::broadcast).
inline std::uint64_t broadcast_sends(int p, int me, int root)
{
    const int rel = (me - root + p) % p;
    std::uint64_t sends = 0;
    for (int mask = 1; mask < p && (rel & mask) == 0; mask <<= 1) {
        sends += rel + mask < p ? 1 : 0;
    }
    return sends;
}

} // namespace treefold::testing
