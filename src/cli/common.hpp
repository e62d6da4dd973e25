#pragma once
// Helpers shared by the subcommands.

#include "commands.hpp"
#include "treefold/layout/distribution.hpp"

#include <cstring>
#include <string>

namespace treefold::cli {

/// Parses a distribution name, turning the library's error into a usage error.
inline layout::distribution parse_distribution(const std::string& s)
{
    try {
        return layout::distribution::parse(s);
    } catch (const std::invalid_argument& e) {
        throw usage_error(std::string(e.what()).substr(std::strlen("treefold: ")));
    }
}

} // namespace treefold::cli
