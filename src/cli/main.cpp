// The `treefold` command-line tool: dispatches to one subcommand per file (commands.hpp).
//
// Exit codes: 0 success, 2 bad input (one message, every rank exits; a launcher of another MPI
// than the one the tool is built against included), 1 anything else.
#include "../net/launcher.hpp"
#include "common.hpp"
#include "treefold/version.hpp"

#include <boost/program_options/errors.hpp>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace {

using treefold::cli::command;

// The model component's subcommands are compiled where it is built (src/cli/CMakeLists.txt).
#if TREEFOLD_CLI_MODEL
#define TREEFOLD_CLI_MODEL_RUN(f) &treefold::cli::f
#else
#define TREEFOLD_CLI_MODEL_RUN(f) nullptr
#endif

/// Every subcommand, built or not.
const command commands[] = {
    {"sum", "mpirun -n P treefold sum [FILE] [--distribution D] [--exchange E] [--repeat R]\n"
            "      reproducible sum of a .binpsllh or text file (one number per line); without FILE\n"
            "      a built-in synthetic log-likelihood array of 10^6 values. E: an exchange of the\n"
            "      registry (automatic by default; `treefold sum --help` lists them); D: even-upper\n"
            "      (default), even-lower, power-of-two, aligned:ALPHA",
     &treefold::cli::run_sum},
    {"calibrate", "mpirun -n P treefold calibrate --out FILE [--min-level A] [--max-level B]\n"
                  "      exchange::automatic's choice for N = 2^A .. 2^B doubles on P ranks (default 1 .. 24),\n"
                  "      written for TREEFOLD_CALIBRATION=FILE",
     &treefold::cli::run_calibrate},
    {"plan", "treefold plan --n N --p P [--distribution D] [--t-send NS] [--t-op NS]\n"
             "      direct-exchange messages, block sizes and score per layout (no MPI)",
     TREEFOLD_CLI_MODEL_RUN(run_plan), "model"},
    {"schedule", "treefold schedule --p P [--alpha-p X --alpha-r Y [--beta B] | --constants FILE] [--bytes N]\n"
                 "      [--schedule TEXT]... [--noise US --seed S]: recursive doubling, heuristic and best allreduce schedules with\n"
                 "      modelled and simulated times and message counts (no MPI)",
     TREEFOLD_CLI_MODEL_RUN(run_schedule), "model"},
    {"simulate", "treefold simulate --p P [--n N] [--exchange E|all]... [--schedule TEXT]... [--model pipelining|loggp|size]\n"
                 "      [--svg DIR]: task-graph simulation of exchanges and schedules: makespan, messages, critical\n"
                 "      path, SVG timelines (no MPI)",
     TREEFOLD_CLI_MODEL_RUN(run_simulate), "model"},
};

void print_usage(std::FILE* out)
{
    std::fputs("usage:\n", out);
    for (const auto& c : commands) {
        if (c.run != nullptr) {
            std::fprintf(out, "  %s\n", c.usage);
        }
    }
    std::fputs("  treefold --version\n"
               "Every subcommand takes --help. A FILE may be - for standard input (text, one number per line).\n",
               out);
}

} // namespace

const char* treefold::cli::usage_of(const char* name)
{
    for (const auto& c : commands) {
        if (c.run != nullptr && std::string_view(c.name) == name) {
            return c.usage;
        }
    }
    return "";
}

int main(int argc, char** argv)
{
    const std::vector<std::string> all(argv + 1, argv + argc);
    if (all.empty() || all[0] == "--help" || all[0] == "-h" || all[0] == "help") {
        print_usage(all.empty() ? stderr : stdout);
        return all.empty() ? treefold::cli::exit_bad_input : 0;
    }
    if (all[0] == "--version") {
        std::printf("treefold %s\n", TREEFOLD_VERSION_STRING);
        return 0;
    }
    const std::vector<std::string> rest(all.begin() + 1, all.end());
    for (const auto& c : commands) {
        if (all[0] != c.name) {
            continue;
        }
        if (c.run == nullptr) {
            std::fprintf(stderr, "treefold: '%s' needs the %s component, which this build of the tool leaves out "
                                 "(configure with TREEFOLD_COMPONENTS including %s)\n", c.name, c.component, c.component);
            return treefold::cli::exit_bad_input;
        }
        // Before any subcommand initialises MPI: the other implementation's launcher would
        // start every process as a singleton (one message, every process exits 2).
        if (treefold::net::report_launcher_mismatch()) {
            return treefold::cli::exit_bad_input;
        }
        try {
            return c.run(rest, argc, argv);
        } catch (const treefold::cli::usage_error& e) {
            std::fprintf(stderr, "treefold %s: %s\n", c.name, e.what());
            return treefold::cli::exit_bad_input;
        } catch (const boost::program_options::error& e) {
            std::fprintf(stderr, "treefold %s: %s\nusage: %s\n", c.name, e.what(), c.usage);
            return treefold::cli::exit_bad_input;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "treefold %s: %s\n", c.name, treefold::cli::without_prefix(e.what()).c_str());
            return 1;
        }
    }
    std::fprintf(stderr, "treefold: unknown command '%s'\n", all[0].c_str());
    print_usage(stderr);
    return treefold::cli::exit_bad_input;
}
