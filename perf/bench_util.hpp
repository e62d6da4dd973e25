#pragma once
// Shared by the MPI benchmark programs: robust statistics and the machine description.

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
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

/// The items of a comma-separated list of unsigned integers, all digits each (so "-1", "2x"
/// and "" are refused with std::invalid_argument naming `option`, instead of wrapping or
/// stopping at the first bad character as std::stoul does).
inline std::vector<std::uint64_t> unsigned_list(const std::string& list, const std::string& option)
{
    std::vector<std::uint64_t> out;
    for (const auto& item : split_list(list)) {
        std::size_t used = 0;
        unsigned long long v = 0;
        if (std::isdigit(static_cast<unsigned char>(item.front())) != 0) {
            try {
                v = std::stoull(item, &used);
            } catch (const std::exception&) {
                used = 0; // out of range
            }
        }
        if (used == 0 || used != item.size()) {
            throw std::invalid_argument(option + ": '" + item + "' is not an unsigned integer");
        }
        out.push_back(v);
    }
    if (out.empty()) {
        throw std::invalid_argument(option + ": empty list");
    }
    return out;
}

/// True when p ranks exceed the cores of this machine (timings are then oversubscribed).
inline bool oversubscribed(int p) { return static_cast<unsigned>(p) > std::thread::hardware_concurrency(); }

} // namespace treefold::perf
