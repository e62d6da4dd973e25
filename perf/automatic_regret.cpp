// automatic's regret: how much slower the exchange it chooses is than the best explicit one.
//
//   mpirun -n P automatic_regret [--n N] [--plans K] [--calls C] [--rounds R] [--barrier]
//
// K times: the process's cached choices are forgotten and a reducer<double> with exchange
// automatic is planned afresh (its calibration runs); then that reducer and one reducer per
// candidate named explicitly (native, binomial, direct, dual4, schedule_rd) each run C
// all_reduce calls of N doubles (even_upper blocks), interleaved, R rounds. Per exchange the
// median over rounds of the slowest rank's time per call; the regret is the chosen exchange's
// time (its explicit reducer's) over the least explicit time (1.0: it chose the best one).
// Run it beside a parallel compile to see the choice under load. With --barrier every call
// starts after a barrier and only the calls are timed (the ranks arrive together, as in a
// solver's step). Prints one CSV row per plan and a summary.

#include "bench_util.hpp"
#include "call_timer.hpp"

#include "treefold/exchange/automatic.hpp"
#include "treefold/exchange/registry.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/program_options.hpp>

#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>
#include <type_traits>
#include <string>
#include <vector>

namespace mpi = boost::mpi;
namespace po = boost::program_options;
using namespace treefold;

int main(int argc, char** argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    std::uint64_t n = 460;
    int plans = 20;
    std::uint64_t calls = 20000;
    int rounds = 5;
    po::options_description desc("automatic_regret options");
    desc.add_options()("n", po::value(&n)->default_value(n), "values N in total")(
        "plans", po::value(&plans)->default_value(plans), "independent plans of automatic")(
        "calls", po::value(&calls)->default_value(calls), "calls per exchange per round")(
        "rounds", po::value(&rounds)->default_value(rounds), "interleaved rounds per plan")(
        "barrier", "a barrier before each call, only the calls timed")("help,h", "this help");
    po::variables_map vm;
    try {
        po::store(po::parse_command_line(argc, argv, desc), vm);
        po::notify(vm);
        if (plans < 1 || rounds < 1 || calls < 1 || n < 1) {
            throw std::invalid_argument("--n, --plans, --calls and --rounds must be positive");
        }
    } catch (const std::exception& e) {
        if (world.rank() == 0) {
            std::fprintf(stderr, "automatic_regret: %s\n", e.what());
        }
        return 2;
    }
    if (vm.count("help")) {
        if (world.rank() == 0) {
            std::printf("%s", (std::ostringstream() << desc).str().c_str());
        }
        return 0;
    }
    const bool synced = vm.count("barrier") > 0;
    const auto time_calls = [&](const std::function<double()>& run) {
        return synced ? perf::slowest_seconds_per_synced_call(world, calls, run)
                      : perf::slowest_seconds_per_call(world, calls, run);
    };
    const auto counts = layout::even_upper(n, world.size());
    const auto layout = layout::block_layout::from_counts(counts);
    std::vector<double> local(counts[static_cast<std::size_t>(world.rank())]);
    for (std::size_t i = 0; i < local.size(); ++i) {
        local[i] = 1.0 / static_cast<double>(i + 1 + static_cast<std::size_t>(world.rank()) * 1000);
    }

    // The explicit candidates, planned once.
    std::vector<std::string> names;
    std::vector<std::function<double()>> explicit_calls;
    exchange::for_each_exchange<exchange::automatic_candidate_types>([&]<class E>(std::type_identity<E>) {
        auto r = std::make_shared<reducer<double, ops::plus, kernel::best, E>>(world, layout);
        names.emplace_back(E::name);
        explicit_calls.emplace_back([r, &local] { return r->all_reduce(local); });
    });

    if (world.rank() == 0) {
        std::printf("# automatic_regret p=%d N=%llu calls=%llu rounds=%d%s machine=%s%s\n", world.size(),
                    static_cast<unsigned long long>(n), static_cast<unsigned long long>(calls), rounds,
                    synced ? " barrier-before-each-call" : "",
                    perf::machine().c_str(), perf::oversubscribed(world.size()) ? " OVERSUBSCRIBED" : "");
        std::printf("plan,chosen,automatic_us,chosen_explicit_us,best_explicit,best_us,regret\n");
    }
    std::vector<double> regrets;
    for (int k = 0; k < plans; ++k) {
        exchange::detail::forget_calibration();
        reducer<double> automatic(world, layout); // calibrates
        const std::string chosen(automatic.exchange_used());
        std::vector<std::vector<double>> t(explicit_calls.size() + 1);
        for (int round = 0; round < rounds; ++round) {
            t[0].push_back(time_calls([&] { return automatic.all_reduce(local); }));
            for (std::size_t e = 0; e < explicit_calls.size(); ++e) {
                t[e + 1].push_back(time_calls(explicit_calls[e]));
            }
        }
        std::size_t best = 1;
        for (std::size_t e = 1; e < t.size(); ++e) {
            if (perf::quantile(t[e], 0.5) < perf::quantile(t[best], 0.5)) {
                best = e;
            }
        }
        const double mine = perf::quantile(t[0], 0.5);
        const double least = perf::quantile(t[best], 0.5);
        // The choice's regret from the explicit reducer of the chosen exchange, timed beside the
        // others (automatic's own column carries the same exchange's noise a second time).
        std::size_t same = 0;
        for (std::size_t e = 0; e < names.size(); ++e) {
            same = names[e] == chosen ? e + 1 : same;
        }
        const double chosen_time = same > 0 ? perf::quantile(t[same], 0.5) : mine;
        regrets.push_back(chosen_time / least);
        if (world.rank() == 0) {
            std::printf("%d,%s,%.3f,%.3f,%s,%.3f,%.3f\n", k, chosen.c_str(), mine * 1e6, chosen_time * 1e6,
                        names[best - 1].c_str(), least * 1e6, chosen_time / least);
            std::fflush(stdout);
        }
    }
    if (world.rank() == 0) {
        std::printf("# regret: median %.3f, max %.3f over %d plans\n", perf::quantile(regrets, 0.5),
                    perf::quantile(regrets, 1.0), plans);
    }
    return 0;
}
