#pragma once
// Subcommands of the `treefold` tool, one file each. A subcommand returns the exit code:
// 0 success, 2 bad input (one message, every rank exits), 1 anything else; it reports bad
// input by throwing usage_error or a boost::program_options::error.

#include <stdexcept>
#include <string>
#include <vector>

namespace treefold::cli {

/// Bad input: reported once, exit code 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline constexpr int exit_bad_input = 2;

/// A subcommand: name, one usage line, and the function that runs it (args after the name;
/// argc/argv for MPI initialisation); null where this build leaves out `component`, the
/// component it needs beyond io and collective (null: none).
struct command {
    const char* name;
    const char* usage;
    int (*run)(const std::vector<std::string>& args, int& argc, char**& argv);
    const char* component = nullptr;
};

/// The usage text of the subcommand `name` (main.cpp's table).
const char* usage_of(const char* name);

int run_sum(const std::vector<std::string>& args, int& argc, char**& argv);
int run_plan(const std::vector<std::string>& args, int& argc, char**& argv);
int run_schedule(const std::vector<std::string>& args, int& argc, char**& argv);
int run_calibrate(const std::vector<std::string>& args, int& argc, char**& argv);
int run_simulate(const std::vector<std::string>& args, int& argc, char**& argv);

} // namespace treefold::cli
