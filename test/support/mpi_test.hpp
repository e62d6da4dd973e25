#pragma once
/// The project's suites: the installed MPI test kit (treefold/testing/mpi_test.hpp) plus the
/// one helper only this project needs, the shared data sets.

#include "treefold/testing/mpi_test.hpp"

#include <boost/mpi.hpp>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

namespace treefold::testing {

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

} // namespace treefold::testing
