// DSOP benchmark: every algorithm (or those in --algorithms) for N = M in --sizes, one vector
// pair per rank.
// Protocol: barrier, time one call with MPI_Wtime, max over ranks; --iterations rounds, each
// round calling every (algorithm, summation) once in turn, the first round discarded; median
// and 10th/90th percentiles; speedup = allreduce median / median, from the same run. Rounds
// interleave the algorithms so that a slow spell of a shared machine hits them all alike
// (timing one algorithm's calls back to back let a burst of load land on one algorithm only).
// Prints CSV on rank 0; --raw FILE also writes every timed call (for perf/plot_dsop.py).
#include "bench_options.hpp"
#include "bench_util.hpp"
#include "treefold/dsop/dsop.hpp"
#include "treefold/io/synthetic.hpp"

#include <boost/mpi.hpp>
#include <boost/program_options.hpp>

#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mpi = boost::mpi;
namespace po = boost::program_options;
using namespace treefold;

int main(int argc, char** argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    std::string sizes_text = "500,1000,2000,4000";
    int iterations = 25;
    std::string raw_path;
    std::string algorithms_text = "allreduce,allreduce_ring,butterfly,allgather,generalized_rabenseifner,"
                                  "allgather_async,bruck_async,allreduce_ring_pipelined,butterfly_pipelined,"
                                  "generalized_rabenseifner_pipelined";
    std::string summations_text = "fast,reproducible";
    po::options_description desc("dsop_bench");
    desc.add_options()("sizes", po::value(&sizes_text)->default_value(sizes_text), "N = M values, comma separated")(
        "iterations", po::value(&iterations)->default_value(iterations), "timed rounds (the first is discarded)")(
        "raw", po::value(&raw_path), "CSV file for every timed call (rank 0 writes it)")(
        "algorithms", po::value(&algorithms_text)->default_value(algorithms_text),
        "DSOP algorithms, comma separated (allreduce, the speedup's baseline, is always run)")(
        "summations", po::value(&summations_text)->default_value(summations_text),
        "fast and/or reproducible (the latter only for the algorithms that see every pair)");
    if (!perf::parse_options(argc, argv, "dsop_bench", desc, world)) {
        return 2;
    }
    std::vector<std::size_t> sizes;
    for (const auto& item : perf::split_list(sizes_text)) {
        sizes.push_back(std::stoul(item));
    }
    std::vector<dsop::algorithm> algorithms{dsop::algorithm::allreduce};
    std::vector<dsop::summation> orders;
    try {
        for (const auto& item : perf::split_list(algorithms_text)) {
            const auto a = dsop::parse_algorithm(item.c_str());
            if (a != dsop::algorithm::allreduce) {
                algorithms.push_back(a);
            }
        }
        for (const auto& item : perf::split_list(summations_text)) {
            if (item != "fast" && item != "reproducible") {
                throw std::invalid_argument("dsop_bench: --summations takes fast and reproducible, not '" + item + "'");
            }
            orders.push_back(item == "fast" ? dsop::summation::fast : dsop::summation::reproducible);
        }
    } catch (const std::invalid_argument& e) {
        if (world.rank() == 0) {
            std::fprintf(stderr, "%s\n", e.what());
        }
        return 2;
    }
    if (world.rank() == 0) {
        std::printf("machine,p,oversubscribed,N,M,algorithm,summation,iterations,median_ms,p10_ms,p90_ms,speedup_vs_allreduce\n");
    }
    std::FILE* raw = nullptr;
    if (world.rank() == 0 && !raw_path.empty()) {
        raw = std::fopen(raw_path.c_str(), "w");
        if (raw == nullptr) {
            std::fprintf(stderr, "dsop_bench: cannot write %s\n", raw_path.c_str());
        } else {
            std::fprintf(raw, "machine,p,oversubscribed,N,M,algorithm,summation,round,ms\n");
        }
    }
    // Every (algorithm, summation) the library offers: the reproducible mode only for the
    // algorithms that see every pair.
    std::vector<std::pair<dsop::algorithm, dsop::summation>> variants;
    variants.emplace_back(dsop::algorithm::allreduce, dsop::summation::fast);
    for (const auto order : orders) {
        for (const auto alg : algorithms) {
            if ((order == dsop::summation::fast && alg != dsop::algorithm::allreduce) ||
                (order == dsop::summation::reproducible && dsop::sees_every_pair(alg))) {
                variants.emplace_back(alg, order);
            }
        }
    }
    for (const std::size_t n : sizes) {
        std::vector<double> a(n), b(n), g(n * n);
        for (std::size_t i = 0; i < n; ++i) {
            a[i] = io::synthetic_value(io::synthetic_kind::mixed, static_cast<std::uint64_t>(world.rank()) * 2 * n + i);
            b[i] = io::synthetic_value(io::synthetic_kind::loglik, static_cast<std::uint64_t>(world.rank()) * 2 * n + n + i);
        }
        std::vector<std::vector<double>> times(variants.size());
        for (int it = 0; it < iterations; ++it) {
            for (std::size_t v = 0; v < variants.size(); ++v) {
                world.barrier();
                const double t0 = MPI_Wtime();
                dsop::sum_outer_products<double>(world, a, b, n, n, g, variants[v].first, variants[v].second);
                const double dt = MPI_Wtime() - t0;
                const double slowest = mpi::all_reduce(world, dt, mpi::maximum<double>());
                if (it > 0) {
                    times[v].push_back(slowest * 1e3);
                    if (raw != nullptr) {
                        std::fprintf(raw, "%s,%d,%s,%zu,%zu,%s,%s,%d,%.4f\n", perf::machine().c_str(), world.size(),
                                     perf::oversubscribed(world.size()) ? "yes" : "no", n, n,
                                     dsop::name(variants[v].first),
                                     variants[v].second == dsop::summation::fast ? "fast" : "reproducible", it,
                                     slowest * 1e3);
                    }
                }
            }
        }
        double baseline = 0.0;
        for (std::size_t v = 0; v < variants.size(); ++v) {
            const auto [alg, order] = variants[v];
            const double median = perf::quantile(times[v], 0.5);
            if (alg == dsop::algorithm::allreduce && order == dsop::summation::fast) {
                baseline = median;
            }
            if (world.rank() == 0) {
                std::printf("%s,%d,%s,%zu,%zu,%s,%s,%zu,%.3f,%.3f,%.3f,%.2f\n", perf::machine().c_str(), world.size(),
                            perf::oversubscribed(world.size()) ? "yes" : "no", n, n, dsop::name(alg),
                            order == dsop::summation::fast ? "fast" : "reproducible", times[v].size(), median,
                            perf::quantile(times[v], 0.1), perf::quantile(times[v], 0.9), baseline / median);
                std::fflush(stdout);
            }
        }
    }
    if (raw != nullptr) {
        std::fclose(raw);
    }
    return 0;
}
