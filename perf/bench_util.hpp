#pragma once
// Shared by the MPI benchmark programs: robust statistics and the machine description.

#include <algorithm>
#include <cstddef>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace treefold::perf {

/// The q-quantile (0..1) of `v` by nearest rank (v is copied and sorted).
inline double quantile(std::vector<double> v, double q)
{
    if (v.empty()) {
        return 0.0;
    }
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

/// Host name and core count, for the CSV's machine column.
inline std::string machine()
{
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    return std::string(host) + "/" + std::to_string(std::thread::hardware_concurrency()) + "cores";
}

/// The non-empty items of a comma-separated list ("a,,b" gives a and b).
inline std::vector<std::string> split_list(const std::string& text)
{
    std::vector<std::string> out;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        const auto comma = std::min(text.find(',', begin), text.size());
        if (comma > begin) {
            out.push_back(text.substr(begin, comma - begin));
        }
        begin = comma + 1;
    }
    return out;
}

/// True when p ranks exceed the cores of this machine (timings are then oversubscribed).
inline bool oversubscribed(int p) { return static_cast<unsigned>(p) > std::thread::hardware_concurrency(); }

} // namespace treefold::perf
