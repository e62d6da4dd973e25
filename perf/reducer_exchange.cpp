// Latency of the reproducible reducer's all_reduce by exchange: direct and binomial tree
// (result on one rank, then the reducer's broadcast) against the schedule exchanges (frontier
// merge on every rank, no broadcast), for a few values per rank.
//
//   mpirun -n <p> reducer_exchange [--per-rank K] [--iterations N] [--warmup W]
//
// Each call after a barrier; time = slowest rank; median / p1 / p99 over N calls, methods
// interleaved per call; `ratio` against the direct exchange in the same run. Messages are
// summed over ranks per call (deterministic). Beyond 2 ranks this machine is oversubscribed.
#include "treefold/model/schedules.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/exchange/registry.hpp"
#include "treefold/reducer.hpp"

#include <boost/mpi.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace mpi = boost::mpi;
using namespace treefold;

int main(int argc, char** argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    std::uint64_t per_rank = 8;
    int iterations = 1000;
    int warmup = 100;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--per-rank") {
            per_rank = std::strtoull(argv[i + 1], nullptr, 10);
        } else if (a == "--iterations") {
            iterations = std::atoi(argv[i + 1]);
        } else if (a == "--warmup") {
            warmup = std::atoi(argv[i + 1]);
        }
    }
    const int p = world.size();
    const std::uint64_t n = per_rank * static_cast<std::uint64_t>(p);
    const auto l = layout::block_layout::from_counts(layout::even_lower(n, p));
    std::vector<double> local(l.block_of(world.rank()).count);
    for (std::size_t i = 0; i < local.size(); ++i) {
        local[i] = 1.0 / static_cast<double>(l.block_of(world.rank()).start + i + 1);
    }
    reducer<double, std::plus<double>, kernel::scalar, exchange::direct> direct(world, l);
    reducer<double, std::plus<double>, kernel::scalar, exchange::tree<>> tree(world, l);
    reducer<double, std::plus<double>, kernel::scalar, exchange::scheduled<>> rd(world, l);
    reducer<double, std::plus<double>, kernel::scalar, exchange::scheduled<model::schedules::best>> best(world, l);
    struct method {
        const char* name;
        std::function<double()> run;
        std::function<std::uint64_t()> messages;
    };
    const std::vector<method> methods{
        {"direct+bcast", [&] { return direct.all_reduce(local); }, [&] { return direct.last_counters().messages; }},
        {"tree+bcast", [&] { return tree.all_reduce(local); }, [&] { return tree.last_counters().messages; }},
        {"sched_rd", [&] { return rd.all_reduce(local); }, [&] { return rd.last_counters().messages; }},
        {"sched_best", [&] { return best.all_reduce(local); }, [&] { return best.last_counters().messages; }},
    };
    std::vector<std::vector<double>> times(methods.size(), std::vector<double>(static_cast<std::size_t>(iterations)));
    std::vector<std::uint64_t> bits(methods.size());
    std::vector<std::uint64_t> messages(methods.size());
    for (int it = -warmup; it < iterations; ++it) {
        for (std::size_t k = 0; k < methods.size(); ++k) {
            world.barrier();
            const double t0 = MPI_Wtime();
            const double v = methods[k].run();
            const double dt = MPI_Wtime() - t0;
            if (it >= 0) {
                times[k][static_cast<std::size_t>(it)] = dt;
            }
            std::memcpy(&bits[k], &v, sizeof v);
            messages[k] = methods[k].messages();
        }
    }
    const unsigned cores = std::thread::hardware_concurrency();
    std::vector<double> medians(methods.size());
    for (std::size_t k = 0; k < methods.size(); ++k) {
        std::vector<double> slowest(times[k].size());
        MPI_Allreduce(times[k].data(), slowest.data(), iterations, MPI_DOUBLE, MPI_MAX, world);
        std::sort(slowest.begin(), slowest.end());
        auto at = [&](double q) {
            return slowest[static_cast<std::size_t>(q * static_cast<double>(slowest.size() - 1) + 0.5)] * 1e6;
        };
        const auto total = mpi::all_reduce(world, messages[k], std::plus<std::uint64_t>());
        medians[k] = at(0.5);
        if (world.rank() == 0) {
            if (k == 0) {
                std::printf("# reducer all_reduce latency: p = %d (%u cores)%s, N = %llu doubles (%llu per rank), "
                            "schedule best = '%s'\n",
                            p, cores, static_cast<unsigned>(p) > cores ? " OVERSUBSCRIBED" : "",
                            static_cast<unsigned long long>(n), static_cast<unsigned long long>(per_rank),
                            model::schedules::best::make(p).to_string().c_str());
                std::printf("p,method,iterations,median_us,p1_us,p99_us,ratio_vs_direct,messages,bits\n");
            }
            std::printf("%d,%s,%d,%.3f,%.3f,%.3f,%.3f,%llu,%016llx\n", p, methods[k].name, iterations, at(0.5),
                        at(0.01), at(0.99), at(0.5) / medians[0], static_cast<unsigned long long>(total),
                        static_cast<unsigned long long>(bits[k]));
        }
    }
    return 0;
}
