#pragma once
// Command-line parsing shared by the MPI benchmark programs (Boost.Program_options).

#include <boost/mpi/communicator.hpp>
#include <boost/program_options.hpp>

#include <cstdio>
#include <iostream>
#include <optional>

namespace treefold::perf {

/// Parses argv on every rank (they all see the same command line, so they agree). On an
/// error rank 0 prints `program: message` and the options, and the result is empty: the caller returns 2.
inline std::optional<boost::program_options::variables_map>
parse_options(int argc, char** argv, const char* program, const boost::program_options::options_description& desc,
              const boost::mpi::communicator& comm,
              const boost::program_options::positional_options_description& positional = {})
{
    namespace po = boost::program_options;
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(desc).positional(positional).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        if (comm.rank() == 0) {
            std::fprintf(stderr, "%s: %s\n", program, e.what());
            std::cerr << desc;
        }
        return std::nullopt;
    }
    return vm;
}

/// parse_options for the programs that read an input: their first positional argument is
/// the option `file`.
inline std::optional<boost::program_options::variables_map>
parse_options_with_file(int argc, char** argv, const char* program,
                        const boost::program_options::options_description& desc, const boost::mpi::communicator& comm)
{
    boost::program_options::positional_options_description positional;
    positional.add("file", 1);
    return parse_options(argc, argv, program, desc, comm, positional);
}

/// True when --help was given; rank 0 has then printed the options (the caller returns 0).
inline bool help_requested(const boost::program_options::variables_map& vm,
                           const boost::program_options::options_description& desc, const boost::mpi::communicator& comm)
{
    if (vm.count("help") == 0) {
        return false;
    }
    if (comm.rank() == 0) {
        std::cout << desc;
    }
    return true;
}

} // namespace treefold::perf
