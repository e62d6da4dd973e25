// Per-call cost of the audit's safety checks (doc/performance.md, "Audit checks"): times
// all_reduce with a given exchange, layout and operator, and prints the median per call in
// microseconds on rank 0. It uses only the API that predates the checks, so the same source
// builds against an older tree for before/after runs; the checking level is switched with
// TREEFOLD_CHECK=1 in the environment.
//
//   mpirun -n P audit_bench --exchange NAME --counts C0,C1,... [--op plus|lambda] [--reps R]
#include "treefold/all_exchanges.hpp"
#include "treefold/reducer.hpp"

#include <boost/mpi.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string arg(int argc, char** argv, const char* flag, const char* fallback)
{
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], flag) == 0) {
            return argv[i + 1];
        }
    }
    return fallback;
}

template <class R>
double median_us(const boost::mpi::communicator& world, R& r, const std::vector<double>& local, int reps)
{
    std::vector<double> t(static_cast<std::size_t>(reps));
    volatile double sink = 0;
    for (int i = 0; i < 50; ++i) {
        sink = sink + r.all_reduce(local);
    }
    world.barrier();
    for (auto& x : t) {
        const auto a = std::chrono::steady_clock::now();
        sink = sink + r.all_reduce(local);
        x = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count();
    }
    std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
    return t[static_cast<std::size_t>(reps / 2)];
}

} // namespace

int main(int argc, char** argv)
{
    boost::mpi::environment env(argc, argv);
    const boost::mpi::communicator world;
    const std::string exchange = arg(argc, argv, "--exchange", "direct");
    const std::string op = arg(argc, argv, "--op", "plus");
    const int reps = std::atoi(arg(argc, argv, "--reps", "2000").c_str());
    std::vector<std::uint64_t> counts;
    std::stringstream list(arg(argc, argv, "--counts", "230,230"));
    for (std::string c; std::getline(list, c, ',');) {
        counts.push_back(std::stoull(c));
    }
    if (static_cast<int>(counts.size()) != world.size()) {
        std::fprintf(stderr, "audit_bench: --counts needs one count per rank\n");
        return 2;
    }
    const auto l = treefold::layout::block_layout::from_counts(counts);
    std::vector<double> local(l.block_of(world.rank()).count);
    for (std::size_t i = 0; i < local.size(); ++i) {
        local[i] = 1.0 / static_cast<double>(i + 1 + static_cast<std::size_t>(world.rank()));
    }
    double us = 0;
    treefold::exchange::visit_by_name<treefold::all_exchanges>(exchange, [&]<class E>(std::type_identity<E>) {
        if (op == "lambda") {
            auto f = [](double a, double b) { return a + b; }; // a user operator: it may throw
            treefold::reducer<double, decltype(f), treefold::kernel::best, E> r(world, l, f);
            us = median_us(world, r, local, reps);
        } else {
            treefold::reducer<double, std::plus<double>, treefold::kernel::best, E> r(world, l);
            us = median_us(world, r, local, reps);
        }
    });
    if (world.rank() == 0) {
        const char* check = std::getenv("TREEFOLD_CHECK");
        std::printf("%s,%s,%s,%s,%.3f\n", exchange.c_str(), op.c_str(), arg(argc, argv, "--counts", "230,230").c_str(),
                    check != nullptr ? check : "0", us);
    }
    return 0;
}
