#pragma once
// Helpers shared by the subcommands.

#include "commands.hpp"
#include "treefold/layout/block_layout.hpp"

#include <boost/program_options/options_description.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace treefold::cli {

/// A library message without its "treefold: " prefix (the tool adds "treefold <command>: ").
inline std::string without_prefix(std::string msg)
{
    const std::string prefix = "treefold: ";
    if (msg.starts_with(prefix)) {
        msg.erase(0, prefix.size());
    }
    return msg;
}

/// A library error about the input as a usage error (exit code 2).
inline usage_error as_usage(const std::exception& e) { return usage_error(without_prefix(e.what())); }

/// Parses a distribution name, turning the library's error into a usage error.
inline layout::distribution parse_distribution(const std::string& s)
{
    try {
        return layout::distribution::parse(s);
    } catch (const std::invalid_argument& e) {
        throw as_usage(e);
    }
}

/// True when the arguments ask for help (--help or -h anywhere).
inline bool help_requested(const std::vector<std::string>& args)
{
    return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
}

/// Prints the subcommand's usage and options to standard output; returns exit code 0.
inline int print_help(const char* name, const boost::program_options::options_description& desc)
{
    std::cout << "usage: " << usage_of(name) << "\n\n" << desc << std::flush;
    return 0;
}

/// Refuses a negative, infinite or NaN cost parameter.
inline void require_cost(double value, const char* option)
{
    if (!std::isfinite(value) || value < 0) {
        std::ostringstream os;
        os << option << " must be a finite number >= 0, got " << value;
        throw usage_error(os.str());
    }
}

/// A default value as a help text shows it (0.88, not 0.880000).
inline std::string default_text(double value)
{
    std::ostringstream out;
    out << value;
    return out.str();
}

} // namespace treefold::cli
