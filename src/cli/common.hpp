#pragma once
// Helpers shared by the subcommands.

#include "commands.hpp"
#include "treefold/layout/block_layout.hpp"

#include <boost/program_options/errors.hpp>
#include <boost/program_options/options_description.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
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

/// f(), with a library error of type E about the input (std::invalid_argument unless named)
/// thrown as a usage error instead.
template <class E = std::invalid_argument, class F>
decltype(auto) usage_on(F&& f)
{
    try {
        return std::forward<F>(f)();
    } catch (const E& e) {
        throw as_usage(e);
    }
}

/// Parses a distribution name, turning the library's error into a usage error.
inline layout::distribution parse_distribution(const std::string& s)
{
    return usage_on([&] { return layout::distribution::parse(s); });
}

/// Runs an MPI subcommand's `f` (returning the exit code) on this rank, `rank`. Bad input
/// (usage_error, program_options::error), which every rank meets alike, is reported once, by
/// rank 0, and every rank returns exit_bad_input.
template <class F>
int bad_input_once(int rank, const char* name, F&& f)
{
    try {
        return std::forward<F>(f)();
    } catch (const usage_error& e) {
        if (rank == 0) {
            std::fprintf(stderr, "treefold %s: %s\n", name, e.what());
        }
        return exit_bad_input;
    } catch (const boost::program_options::error& e) {
        if (rank == 0) {
            std::fprintf(stderr, "treefold %s: %s (see: treefold --help)\n", name, e.what());
        }
        return exit_bad_input;
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
