// DSOP benchmark: every algorithm for N = M in --sizes, one vector pair per rank.
// Protocol: barrier, time one call with MPI_Wtime, max over ranks; --iterations calls with the
// first discarded; median and 10th/90th percentiles; speedup = allreduce median / median, from
// the same run. Prints CSV on rank 0.
#include "bench_options.hpp"
#include "bench_util.hpp"
#include "treefold/dsop/dsop.hpp"
#include "treefold/io/synthetic.hpp"

#include <boost/mpi.hpp>
#include <boost/program_options.hpp>

#include <cstdio>
#include <map>
#include <string>
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
    po::options_description desc("dsop_bench");
    desc.add_options()("sizes", po::value(&sizes_text)->default_value(sizes_text), "N = M values, comma separated")(
        "iterations", po::value(&iterations)->default_value(iterations), "timed calls (the first is discarded)");
    if (!perf::parse_options(argc, argv, "dsop_bench", desc, world)) {
        return 2;
    }
    std::vector<std::size_t> sizes;
    for (const auto& item : perf::split_list(sizes_text)) {
        sizes.push_back(std::stoul(item));
    }
    const dsop::algorithm algorithms[] = {dsop::algorithm::allreduce, dsop::algorithm::allreduce_ring,
                                          dsop::algorithm::allgather, dsop::algorithm::generalized_rabenseifner};
    if (world.rank() == 0) {
        std::printf("machine,p,oversubscribed,N,M,algorithm,summation,iterations,median_ms,p10_ms,p90_ms,speedup_vs_allreduce\n");
    }
    for (const std::size_t n : sizes) {
        std::vector<double> a(n), b(n), g(n * n);
        for (std::size_t i = 0; i < n; ++i) {
            a[i] = io::synthetic_value(io::synthetic_kind::mixed, static_cast<std::uint64_t>(world.rank()) * 2 * n + i);
            b[i] = io::synthetic_value(io::synthetic_kind::loglik, static_cast<std::uint64_t>(world.rank()) * 2 * n + n + i);
        }
        double baseline = 0.0;
        for (const auto order : {dsop::summation::fast, dsop::summation::reproducible}) {
            for (const auto alg : algorithms) {
                if (order == dsop::summation::reproducible &&
                    (alg == dsop::algorithm::allreduce || alg == dsop::algorithm::allreduce_ring)) {
                    continue;
                }
                std::vector<double> times;
                for (int it = 0; it < iterations; ++it) {
                    world.barrier();
                    const double t0 = MPI_Wtime();
                    dsop::sum_outer_products<double>(world, a, b, n, n, g, alg, order);
                    const double dt = MPI_Wtime() - t0;
                    const double slowest = mpi::all_reduce(world, dt, mpi::maximum<double>());
                    if (it > 0) {
                        times.push_back(slowest * 1e3);
                    }
                }
                const double median = perf::quantile(times, 0.5);
                if (alg == dsop::algorithm::allreduce && order == dsop::summation::fast) {
                    baseline = median;
                }
                if (world.rank() == 0) {
                    std::printf("%s,%d,%s,%zu,%zu,%s,%s,%zu,%.3f,%.3f,%.3f,%.2f\n", perf::machine().c_str(), world.size(),
                                perf::oversubscribed(world.size()) ? "yes" : "no", n, n, dsop::name(alg),
                                order == dsop::summation::fast ? "fast" : "reproducible", times.size(), median,
                                perf::quantile(times, 0.1), perf::quantile(times, 0.9), baseline / median);
                    std::fflush(stdout);
                }
            }
        }
    }
    return 0;
}
