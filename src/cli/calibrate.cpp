// `mpirun -n P treefold calibrate --out FILE [--min-level A] [--max-level B]`: runs
// exchange::automatic's calibration for N = 2^A .. 2^B doubles on P ranks and writes the
// choices in the form TREEFOLD_CALIBRATION reads ("p level bytes exchange" per line).
#include "common.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"

#include <boost/mpi.hpp>
#include <boost/program_options.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace po = boost::program_options;
namespace mpi = boost::mpi;

namespace treefold::cli {

int run_calibrate(const std::vector<std::string>& args, int& argc, char**& argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    std::string out;
    unsigned lo = 1;
    unsigned hi = 24;
    // Bad input (options, an unwritable --out) ends every rank with exit_bad_input, rank 0 saying why.
    return bad_input_once(world.rank(), "calibrate", [&] {
        po::options_description desc("treefold calibrate options");
        desc.add_options()("out", po::value(&out), "file to write (rank 0)")(
            "min-level", po::value(&lo)->default_value(lo), "smallest ceil(log2 N)")(
            "max-level", po::value(&hi)->default_value(hi), "largest ceil(log2 N)")("help,h", "this help");
        if (help_requested(args)) {
            if (world.rank() == 0) {
                print_help("calibrate", desc);
            }
            return 0;
        }
        po::variables_map vm;
        po::store(po::command_line_parser(args).options(desc).run(), vm);
        po::notify(vm);
        if (out.empty()) {
            throw usage_error("--out FILE is required");
        }
        if (lo < 1 || lo > hi || hi > 40) {
            throw usage_error("need 1 <= --min-level <= --max-level <= 40");
        }
        // Measure afresh: neither a forced exchange nor an earlier file may answer.
        unsetenv("TREEFOLD_EXCHANGE");
        unsetenv("TREEFOLD_CALIBRATION");
        exchange::detail::forget_calibration();
        std::string text = "# treefold calibrate: p level bytes exchange (exchange::automatic's choice)\nmpi " +
                           exchange::detail::mpi_library() + "\n";
        for (unsigned level = lo; level <= hi; ++level) {
            const auto n = std::uint64_t{1} << level;
            const auto l = layout::block_layout::from_counts(layout::even_lower(n, world.size()));
            reducer<double> r(world, l);
            text += std::to_string(world.size()) + " " + std::to_string(level) + " " +
                    std::to_string(sizeof(double)) + " " + std::string(r.exchange_used()) + "\n";
        }
        int ok = 1;
        if (world.rank() == 0) {
            std::ofstream file(out);
            file << text;
            ok = file.good() ? 1 : 0;
            std::fputs(text.c_str(), stdout);
        }
        mpi::broadcast(world, ok, 0);
        if (ok == 0) { // a path that cannot be written is bad input, like a file that cannot be read
            throw usage_error("could not write '" + out + "'");
        }
        return 0;
    });
}

} // namespace treefold::cli
