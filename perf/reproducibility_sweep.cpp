// Reproducibility over the process count at the binary-tree-reduction thesis's scale (seed
// 000, Table 4.2): the result of treefold, std::accumulate + MPI_Allreduce and the fast-math
// sum + MPI_Allreduce for each p, from real ranks or from virtual ones.
//
//   mpirun -n P reproducibility_sweep [FILE | --n N --kind K] [--distribution D]
//   reproducibility_sweep --virtual 1,17,33,... [FILE | --n N --kind K] [--distribution D]
//
// Real ranks (the default): one row per method for p = the communicator's size.
// Virtual ranks (--virtual LIST): one process, no MPI call; for each p it splits the values
// into p blocks by the distribution and runs every rank's local work in turn, then combines
// the p partial results in the order the real run would:
//   treefold  each block's frontier (kernel::best on its maximal nodes), merged in index
//             order (the exact frontier merge; every exchange gives these bits);
//   baseline  std::accumulate per block, then MPI_Allreduce's combination ASSUMED to be Open
//             MPI's recursive doubling (the tuned component's choice for one double): ranks
//             2i and 2i + 1 for i < p - 2^k are added first, then the 2^k survivors pairwise
//             at distance 1, 2, 4, ... in rank order (addition commutes bitwise, so every rank
//             gets the same bits);
//   fast      the -ffast-math sum per block (kernel_fastmath_ceiling.cpp), then the same.
// The assumption is checked, not proven: compare the real rows with the virtual ones at the
// p where both exist (scripts/run-binary-tree-thesis does).
//
// CSV on stdout: ranks,p,oversubscribed,n,dataset,distribution,method,result,result_bits
// (ranks is "real" or "virtual"; oversubscribed only means something for real ranks).
#include "baselines.hpp"
#include "bench_options.hpp"
#include "bench_util.hpp"
#include "treefold/collective/distribute.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/frontier.hpp"
#include "treefold/io/synthetic.hpp"
#include "treefold/io/values_file.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"
#include "treefold/index_tree/node.hpp"

#include <boost/mpi.hpp>
#include <boost/program_options.hpp>

#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace mpi = boost::mpi;
namespace po = boost::program_options;
using namespace treefold;

namespace {

struct row {
    const char* method;
    double result;
};

/// The partial sums combined as Open MPI's recursive doubling would (see the file comment).
double recursive_doubling(const std::vector<double>& partial)
{
    const std::size_t p = partial.size();
    const std::size_t pof2 = std::bit_floor(p);
    const std::size_t extra = p - pof2;
    std::vector<double> w;
    w.reserve(pof2);
    for (std::size_t i = 0; i < extra; ++i) {
        w.push_back(partial[2 * i] + partial[2 * i + 1]);
    }
    for (std::size_t r = 2 * extra; r < p; ++r) {
        w.push_back(partial[r]);
    }
    for (std::size_t mask = 1; mask < pof2; mask <<= 1) {
        std::vector<double> next(pof2);
        for (std::size_t i = 0; i < pof2; ++i) {
            next[i] = w[i] + w[i ^ mask];
        }
        w = std::move(next);
    }
    return w[0];
}

/// Every method's result for p virtual ranks.
std::vector<row> virtual_results(const std::vector<double>& all, const layout::block_layout& l)
{
    const index_tree::index_t n = all.size();
    std::plus<double> op;
    frontier<double> merged(n);
    frontier<double> block(n);
    std::vector<double> accumulated;
    std::vector<double> fast;
    for (const int r : l.index_order()) {
        const auto b = l.block_of(r);
        const double* first = all.data() + b.start;
        accumulated.push_back(std::accumulate(first, first + b.count, 0.0));
        fast.push_back(perf::fastmath_sum(first, b.count));
        if (b.count == 0) {
            continue;
        }
        block.reset(n);
        index_tree::for_each_maximal_node(b.start, b.start + b.count, n, [&](index_tree::node v) {
            block.push(v, kernel::best::reduce_node(all.data() + v.x, index_tree::cover_size(v, n), op), op);
        });
        merged.merge(block, op);
    }
    // Empty input: treefold's all_reduce refuses N = 0; the sums are 0.
    const double tree_sum = merged.empty() ? 0.0 : merged.values().front();
    // MPI combines in rank order; index_order() is rank order for the built-in distributions,
    // but a layout may order its blocks otherwise.
    std::vector<double> acc_by_rank(accumulated.size());
    std::vector<double> fast_by_rank(fast.size());
    for (std::size_t k = 0; k < l.index_order().size(); ++k) {
        const auto r = static_cast<std::size_t>(l.index_order()[k]);
        acc_by_rank[r] = accumulated[k];
        fast_by_rank[r] = fast[k];
    }
    return {{"treefold", tree_sum},
            {"baseline", recursive_doubling(acc_by_rank)},
            {"fast", recursive_doubling(fast_by_rank)}};
}

void print(const char* ranks, int p, bool oversub, std::uint64_t n, const std::string& dataset,
           const std::string& dist, const row& r)
{
    std::uint64_t bits = 0;
    std::memcpy(&bits, &r.result, sizeof bits);
    std::printf("%s,%d,%s,%" PRIu64 ",%s,%s,%s,%.17g,%016" PRIX64 "\n", ranks, p, oversub ? "yes" : "no", n,
                dataset.c_str(), dist.c_str(), r.method, r.result, bits);
}

} // namespace

int main(int argc, char** argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    std::uint64_t n = 100000;
    std::string kind = "loglik";
    std::string dist_name = "even-lower";
    std::string dataset;
    std::string virtual_arg;
    po::options_description desc("reproducibility_sweep");
    desc.add_options()("help", "this text")("file", po::value<std::string>(), "a .binpsllh or text value file")(
        "n", po::value(&n)->default_value(n), "synthetic: number of values")(
        "kind", po::value(&kind)->default_value(kind), "synthetic: loglik | mixed | cancel")(
        "distribution", po::value(&dist_name)->default_value(dist_name),
        "even-lower | even-upper | power-of-two | aligned:ALPHA")(
        "dataset", po::value(&dataset), "name in the CSV (default: file name or synthetic-KIND)")(
        "virtual", po::value(&virtual_arg), "comma list of p: virtual ranks in this one process")(
        "no-header", "omit the CSV header line");
    const auto parsed = perf::parse_options_with_file(argc, argv, "reproducibility_sweep", desc, world);
    if (!parsed) {
        return 2;
    }
    const po::variables_map& vm = *parsed;
    if (perf::help_requested(vm, desc, world)) {
        return 0;
    }
    std::optional<layout::distribution> dist;
    std::optional<io::synthetic_kind> synthetic;
    std::vector<int> virtual_ps;
    try {
        dist = layout::distribution::parse(dist_name);
        if (!vm.count("file")) {
            synthetic = io::parse_synthetic_kind(kind);
        }
        for (const auto& item : perf::split_list(virtual_arg)) {
            std::size_t used = 0;
            const int p = std::stoi(item, &used);
            if (used != item.size() || p < 1) {
                throw std::invalid_argument("bad p '" + item + "' in --virtual (want integers >= 1)");
            }
            virtual_ps.push_back(p);
        }
        if (vm.count("virtual") && virtual_ps.empty()) {
            throw std::invalid_argument("--virtual names no p");
        }
        if (!virtual_ps.empty() && world.size() != 1) {
            throw std::invalid_argument("--virtual runs in one process (start it without mpirun or with -n 1)");
        }
    } catch (const std::exception& e) {
        if (world.rank() == 0) {
            std::fprintf(stderr, "reproducibility_sweep: %s (see --help)\n", e.what());
        }
        return 2;
    }
    if (dataset.empty()) {
        dataset = synthetic ? "synthetic-" + kind : std::filesystem::path(vm["file"].as<std::string>()).stem().string();
    }

    std::vector<double> all;
    try {
        if (synthetic && !virtual_ps.empty()) {
            all = io::synthetic_values(*synthetic, 0, n); // real ranks compute theirs below
        } else if (!synthetic) {
            n = collective::read_on_root(world, vm["file"].as<std::string>(), all);
        }
    } catch (const io::file_error& e) {
        if (world.rank() == 0) {
            std::fprintf(stderr, "reproducibility_sweep: %s\n", e.what());
        }
        return 2;
    }
    if (n == 0) {
        if (world.rank() == 0) {
            std::fprintf(stderr, "reproducibility_sweep: the input holds no values (N = 0)\n");
        }
        return 2;
    }
    if (world.rank() == 0 && !vm.count("no-header")) {
        std::printf("ranks,p,oversubscribed,n,dataset,distribution,method,result,result_bits\n");
    }

    if (!virtual_ps.empty()) {
        for (const int p : virtual_ps) {
            const auto l = layout::block_layout::from_counts(dist->counts(n, p));
            for (const auto& r : virtual_results(all, l)) {
                print("virtual", p, false, n, dataset, dist->name(), r);
            }
        }
        return 0;
    }

    const int p = world.size();
    const auto l = layout::block_layout::from_counts(dist->counts(n, p));
    std::vector<double> local;
    if (synthetic) {
        const auto b = l.block_of(world.rank());
        local = io::synthetic_values(*synthetic, b.start, b.count);
    } else {
        local = collective::scatter_blocks(world, all, l);
        all = {};
    }
    reducer<double, std::plus<double>, kernel::best, exchange::direct> tree_sum(world, l);
    const std::vector<row> rows{
        {"treefold", tree_sum.all_reduce(local)},
        {"baseline", perf::mpi_sum(std::accumulate(local.begin(), local.end(), 0.0), world)},
        {"fast", perf::mpi_sum(perf::fastmath_sum(local.data(), local.size()), world)}};
    if (world.rank() == 0) {
        for (const auto& r : rows) {
            print("real", p, perf::oversubscribed(p), n, dataset, dist->name(), r);
        }
    }
    return 0;
}
