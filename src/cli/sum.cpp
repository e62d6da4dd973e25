// `mpirun -n P treefold sum [FILE] [--distribution D] [--exchange NAME] [--repeat R]`:
// the reproducible sum of a file or of the built-in synthetic workload.
#include "common.hpp"
#include "treefold/collective/distribute.hpp"
#if TREEFOLD_CLI_ALL_EXCHANGES
#include "treefold/all_exchanges.hpp"
#endif
#include "treefold/exchange/registry.hpp"
#include "treefold/io/synthetic.hpp"
#include "treefold/io/values_file.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"

#include <boost/mpi.hpp>
#include <boost/program_options.hpp>

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace po = boost::program_options;
namespace mpi = boost::mpi;

namespace treefold::cli {

namespace {

constexpr std::uint64_t default_n = 1'000'000;

// The exchanges offered: every one with the model and rma components built
// (src/cli/CMakeLists.txt), the core's otherwise.
#if TREEFOLD_CLI_ALL_EXCHANGES
using sum_exchanges = treefold::all_exchanges;
#else
using sum_exchanges = exchange::core_exchanges;
#endif

struct sum_options {
    std::optional<std::string> file;
    layout::distribution dist;
    std::string exchange = "automatic";
    int repeat = 10;
    bool help = false;
};

sum_options parse_sum(const std::vector<std::string>& args)
{
    sum_options o;
    std::string dist = "even-upper";
    po::options_description desc("treefold sum options");
    desc.add_options()
        ("distribution", po::value(&dist)->default_value(dist), "even-lower | even-upper | power-of-two | aligned:ALPHA")
        ("exchange", po::value(&o.exchange)->default_value(o.exchange),
         ("one of: " + exchange::name_list<sum_exchanges>()).c_str())
        ("repeat", po::value(&o.repeat)->default_value(o.repeat), "timed calls (median reported)")
        ("file", po::value<std::string>(), "input file (.binpsllh, or text with one number per line; - reads text "
                                            "from standard input)")
        ("help,h", "this help");
    if (help_requested(args)) {
        o.help = true;
        if (mpi::communicator().rank() == 0) {
            print_help("sum", desc);
        }
        return o;
    }
    po::positional_options_description pos;
    pos.add("file", 1);
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
    po::notify(vm);
    if (vm.count("file")) {
        o.file = vm["file"].as<std::string>();
    }
    o.dist = parse_distribution(dist);
    usage_on([&] { exchange::visit_by_name<sum_exchanges>(o.exchange, [](auto) {}); });
    if (o.repeat < 1) {
        throw usage_error("--repeat must be at least 1");
    }
    return o;
}

/// Rank 0 reads the file and scatters the blocks (collective::read_on_root, collective::scatter_blocks);
/// a read error stops every rank with the same message. `l` gets the layout of N.
std::vector<double> load_blocks(const mpi::communicator& world, const sum_options& o, layout::block_layout& l,
                                std::vector<double>& all_on_root)
{
    std::uint64_t n = default_n;
    if (o.file) {
        n = usage_on<io::file_error>([&] { return collective::read_on_root(world, *o.file, all_on_root); });
        if (n == 0) {
            throw usage_error("'" + *o.file + "' holds no values (N = 0): there is nothing to sum");
        }
    }
    const auto counts = o.dist.counts(n, world.size());
    l = layout::block_layout::from_counts(counts);
    if (!o.file) {
        if (world.rank() == 0) {
            all_on_root = io::synthetic_values(io::synthetic_kind::loglik, 0, n);
        }
        const auto mine = l.block_of(world.rank());
        return io::synthetic_values(io::synthetic_kind::loglik, mine.start, mine.count);
    }
    return collective::scatter_blocks(world, all_on_root, l);
}

template <class Exchange>
int run_sum_with(const mpi::communicator& world, const sum_options& o)
{
    layout::block_layout l;
    std::vector<double> all_on_root;
    const auto local = load_blocks(world, o, l, all_on_root);
    // The environment is input too: a bad TREEFOLD_EXCHANGE or TREEFOLD_CALIBRATION makes
    // every rank throw std::invalid_argument here (exchange::automatic).
    auto sum = usage_on([&] { return reducer<double, std::plus<double>, kernel::best, Exchange>(world, l); });

    std::vector<double> times;
    double total = 0.0;
    net::counters per_call;
    for (int k = 0; k < o.repeat; ++k) {
        world.barrier();
        const double t0 = MPI_Wtime();
        total = sum.all_reduce(local);
        const double dt = MPI_Wtime() - t0;
        times.push_back(mpi::all_reduce(world, dt, mpi::maximum<double>()));
        per_call = sum.last_counters();
    }
    const auto messages = mpi::all_reduce(world, per_call.messages, std::plus<std::uint64_t>());
    const auto bytes = mpi::all_reduce(world, per_call.bytes, std::plus<std::uint64_t>());
    // The common irreproducible code: local left-to-right sums combined by MPI_Allreduce.
    const double local_plain = std::accumulate(local.begin(), local.end(), 0.0);
    const double mpi_sum = mpi::all_reduce(world, local_plain, std::plus<double>());

    if (world.rank() == 0) {
        std::sort(times.begin(), times.end());
        const double median = times[times.size() / 2];
        const double plain = std::accumulate(all_on_root.begin(), all_on_root.end(), 0.0);
        std::printf("input            : %s\n",
                    o.file ? o.file->c_str() : "built-in synthetic log-likelihood array");
        std::printf("N                : %" PRIu64 "\n", l.size());
        std::printf("p                : %d\n", world.size());
        std::printf("distribution     : %s\n", o.dist.name().c_str());
        // automatic names what it chose (the one the call ran), e.g. "automatic -> native".
        const std::string used(sum.exchange_used());
        if (used == Exchange::name) {
            std::printf("exchange         : %s\n", Exchange::name);
        } else {
            std::printf("exchange         : %s -> %s\n", Exchange::name, used.c_str());
        }
        std::printf("tree sum         : %.17g\n", total);
        std::printf("tree sum bits    : %016" PRIX64 "\n", std::bit_cast<std::uint64_t>(total));
        std::printf("plain sum        : %.17g  (left to right on one rank)\n", plain);
        std::printf("plain sum bits   : %016" PRIX64 "\n", std::bit_cast<std::uint64_t>(plain));
        std::printf("mpi allreduce    : %.17g  (local sums + MPI_Allreduce; may change with p)\n", mpi_sum);
        std::printf("mpi allreduce bits: %016" PRIX64 "\n", std::bit_cast<std::uint64_t>(mpi_sum));
        std::printf("median time      : %.3f us over %d call(s), max over ranks\n", median * 1e6, o.repeat);
        std::printf("messages per call: %" PRIu64 " (%" PRIu64 " bytes), all ranks\n", messages, bytes);
    }
    return 0;
}

} // namespace

int run_sum(const std::vector<std::string>& args, int& argc, char**& argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    return bad_input_once(world.rank(), "sum", [&] {
        const sum_options o = parse_sum(args);
        if (o.help) {
            return 0;
        }
        return exchange::visit_by_name<sum_exchanges>(o.exchange,
                                       [&](auto type) { return run_sum_with<typename decltype(type)::type>(world, o); });
    });
}

} // namespace treefold::cli
