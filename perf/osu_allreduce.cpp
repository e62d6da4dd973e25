// OSU-style small-message allreduce latency: recursive doubling, the heuristic and best
// schedules (schedule_allreducer::elements, planned once), ring and Rabenseifner, against
// MPI_Allreduce; doubles with +, message sizes 8 B .. 4 KiB.
//
//   mpirun -n <p> osu_allreduce [--min B] [--max B] [--iterations N] [--warmup W]
//                               [--constants FILE] [--csv-only]
//
// Every method runs W warm-up calls, then N timed calls, each after a barrier; a call's time
// is the slowest rank's. median / p1 / p99 / avg are over the N calls; `ratio` is the median
// over MPI_Allreduce's median at the same size in the same run. Methods alternate per size
// so background load hits all of them alike. Counts (messages summed over ranks, rounds) are
// deterministic. The schedules come from the model with --constants's α_p, α_r (default
// 0.88/0.38 us). When the file holds the size model (schedule_fit --sizes), the method
// `best_sized` runs the best schedule at each size's message bytes (every message carries the
// whole vector), planned before the timed calls. On this 2-core machine p > 2 is
// oversubscribed (flagged in the output).
#include "treefold/collective/allreduce.hpp"
#include "treefold/model/pipelining.hpp"
#include "treefold/model/size_model.hpp"

#include <boost/mpi.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace topology = treefold::topology;
namespace mpi = boost::mpi;
namespace collective = treefold::collective;

namespace {

struct result {
    double median, p1, p99, avg;
};

result summarise(std::vector<double> t)
{
    std::sort(t.begin(), t.end());
    auto at = [&](double q) { return t[static_cast<std::size_t>(q * static_cast<double>(t.size() - 1) + 0.5)] * 1e6; };
    return {at(0.5), at(0.01), at(0.99), std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size()) * 1e6};
}

} // namespace

int main(int argc, char** argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    long min_bytes = 8;
    long max_bytes = 4096;
    int iterations = 1000;
    int warmup = 100;
    bool csv_only = false;
    treefold::model::size_params sized;
    treefold::model::params& m = sized.base;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool v = i + 1 < argc;
        if (a == "--min" && v) {
            min_bytes = std::atol(argv[++i]);
        } else if (a == "--max" && v) {
            max_bytes = std::atol(argv[++i]);
        } else if (a == "--iterations" && v) {
            iterations = std::atoi(argv[++i]);
        } else if (a == "--warmup" && v) {
            warmup = std::atoi(argv[++i]);
        } else if (a == "--constants" && v) {
            sized = treefold::model::read_size_constants(argv[++i]);
        } else if (a == "--csv-only") {
            csv_only = true;
        } else {
            if (world.rank() == 0) {
                std::fprintf(stderr, "osu_allreduce: unknown argument %s\n", a.c_str());
            }
            return 2;
        }
    }
    const int p = world.size();
    const topology::schedule rd = topology::recursive_doubling(p);
    const topology::schedule heur = treefold::model::heuristic(p, m);
    const topology::schedule best = treefold::model::best(p, m);
    // Planned once, like the reducer's plan: the timed calls measure the schedule, not setup.
    collective::schedule_allreducer run_rd(world, rd);
    collective::schedule_allreducer run_heur(world, heur);
    collective::schedule_allreducer run_best(world, best);
    // The size model's best schedule per size (planned here, outside the timed calls).
    std::map<long, topology::schedule> sized_schedule;
    std::map<std::string, std::unique_ptr<collective::schedule_allreducer>> sized_runner;
    if (sized.sized()) {
        for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
            const auto msg = static_cast<std::uint64_t>(std::max<long>(1, bytes / 8) * 8);
            const topology::schedule s = treefold::model::best(p, sized, msg);
            sized_schedule.emplace(bytes, s);
            if (sized_runner.count(s.to_string()) == 0) {
                sized_runner.emplace(s.to_string(), std::make_unique<collective::schedule_allreducer>(world, s));
            }
        }
    }
    collective::schedule_allreducer* sized_now = nullptr; // this size's runner
    int q = 1;
    while (q * 2 <= p) {
        q *= 2;
    }
    const int rab_rounds = 2 * static_cast<int>(std::log2(q)) + (q < p ? 2 : 0);

    struct method {
        std::string name;
        std::string stages;
        int rounds;
        std::function<void(std::span<double>, treefold::net::counters&)> run;
    };
    std::vector<double> scratch;
    std::vector<method> methods{
        {"MPI_Allreduce", "-", 0,
         [&](std::span<double> d, treefold::net::counters&) {
             scratch.resize(d.size());
             MPI_Allreduce(d.data(), scratch.data(), static_cast<int>(d.size()), MPI_DOUBLE, MPI_SUM, world);
             std::copy(scratch.begin(), scratch.end(), d.begin());
         }},
        {"recursive_doubling", rd.to_string(), rd.rounds(),
         [&](std::span<double> d, treefold::net::counters& c) {
             run_rd.elements(d, std::plus<double>(), &c);
         }},
        {"heuristic", heur.to_string(), heur.rounds(),
         [&](std::span<double> d, treefold::net::counters& c) {
             run_heur.elements(d, std::plus<double>(), &c);
         }},
        {"best", best.to_string(), best.rounds(),
         [&](std::span<double> d, treefold::net::counters& c) {
             run_best.elements(d, std::plus<double>(), &c);
         }},
        {"ring", "-", 2 * (p - 1),
         [&](std::span<double> d, treefold::net::counters& c) {
             collective::ring_allreduce(world, d, std::plus<double>(), &c);
         }},
        {"rabenseifner", "-", rab_rounds,
         [&](std::span<double> d, treefold::net::counters& c) {
             collective::rabenseifner_allreduce(world, d, std::plus<double>(), &c);
         }},
    };
    if (sized.sized()) {
        methods.push_back({"best_sized", "per size", 0, [&](std::span<double> d, treefold::net::counters& c) {
                               sized_now->elements(d, std::plus<double>(), &c);
                           }});
    }
    const unsigned cores = std::thread::hardware_concurrency();
    char host[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(host, &len);
    const bool over = static_cast<unsigned>(p) > cores;
    if (world.rank() == 0 && !csv_only) {
        std::printf("# treefold OSU-style allreduce latency: p = %d on %s (%u cores)%s, doubles +, alpha_p = %g us, "
                    "alpha_r = %g us\n",
                    p, host, cores, over ? " OVERSUBSCRIBED" : "", m.alpha_p, m.alpha_r);
        std::printf("# schedules: recursive_doubling '%s', heuristic '%s', best '%s'\n", rd.to_string().c_str(),
                    heur.to_string().c_str(), best.to_string().c_str());
        std::printf("# %-18s %8s %11s %11s %11s %11s %7s %9s %6s\n", "method", "bytes", "median(us)", "p1(us)",
                    "p99(us)", "avg(us)", "ratio", "messages", "rounds");
    }
    std::vector<std::string> csv;
    for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
        const auto n = static_cast<std::size_t>(std::max<long>(1, bytes / 8));
        if (sized.sized()) {
            const topology::schedule& s = sized_schedule.at(bytes);
            sized_now = sized_runner.at(s.to_string()).get();
            methods.back().stages = s.to_string();
            methods.back().rounds = s.rounds();
            if (world.rank() == 0 && !csv_only) {
                std::printf("# %ld B: size model best '%s' (modelled %.3f us; recursive doubling %.3f us)\n",
                            static_cast<long>(n * 8), s.to_string().c_str(),
                            treefold::model::modelled_time(s, p, sized, n * 8),
                            treefold::model::modelled_time(rd, p, sized, n * 8));
            }
        }
        std::vector<double> data(n);
        std::vector<std::vector<double>> times(methods.size(), std::vector<double>(static_cast<std::size_t>(iterations)));
        std::vector<std::uint64_t> messages(methods.size(), 0);
        for (int it = -warmup; it < iterations; ++it) {
            for (std::size_t k = 0; k < methods.size(); ++k) {
                for (std::size_t i = 0; i < n; ++i) {
                    data[i] = 1.0 / static_cast<double>(world.rank() + 1 + static_cast<int>(i));
                }
                treefold::net::counters c;
                world.barrier();
                const double t0 = MPI_Wtime();
                methods[k].run(data, c);
                const double dt = MPI_Wtime() - t0;
                if (it >= 0) {
                    times[k][static_cast<std::size_t>(it)] = dt;
                }
                messages[k] = c.messages;
            }
        }
        std::vector<double> median_of(methods.size());
        std::vector<result> res(methods.size());
        for (std::size_t k = 0; k < methods.size(); ++k) {
            std::vector<double> slowest(times[k].size());
            MPI_Allreduce(times[k].data(), slowest.data(), iterations, MPI_DOUBLE, MPI_MAX, world);
            res[k] = summarise(slowest);
            messages[k] = mpi::all_reduce(world, messages[k], std::plus<std::uint64_t>());
        }
        if (world.rank() == 0) {
            for (std::size_t k = 0; k < methods.size(); ++k) {
                const double ratio = res[k].median / res[0].median;
                const bool counted = k > 0;
                if (!csv_only) {
                    std::printf("  %-18s %8ld %11.2f %11.2f %11.2f %11.2f %7.2f %9s %6s\n", methods[k].name.c_str(),
                                static_cast<long>(n * 8), res[k].median, res[k].p1, res[k].p99, res[k].avg, ratio,
                                counted ? std::to_string(messages[k]).c_str() : "-",
                                counted ? std::to_string(methods[k].rounds).c_str() : "-");
                }
                char line[512];
                std::snprintf(line, sizeof line, "%s,%d,%d,%s,%s,%ld,%d,%.3f,%.3f,%.3f,%.3f,%.4f,%s,%s", host, p,
                              over ? 1 : 0, methods[k].name.c_str(), methods[k].stages.c_str(), static_cast<long>(n * 8),
                              iterations, res[k].median, res[k].p1, res[k].p99, res[k].avg, ratio,
                              counted ? std::to_string(messages[k]).c_str() : "",
                              counted ? std::to_string(methods[k].rounds).c_str() : "");
                csv.emplace_back(line);
            }
        }
    }
    if (world.rank() == 0) {
        std::printf("machine,p,oversubscribed,method,stages,bytes,iterations,median_us,p1_us,p99_us,avg_us,"
                    "ratio_vs_mpi,messages,rounds\n");
        for (const auto& line : csv) {
            std::printf("%s\n", line.c_str());
        }
    }
    return 0;
}
