// Threads inside a rank: one rank's local reduce (one tree node over N doubles, as at p = 1)
// by kernel::best on one thread (the reducer's path without threads), by kernel::split<best>
// on t threads of a thread_pool, and by the irreproducible fast-math ceiling
// (kernel_fastmath_ceiling.cpp) cut into t contiguous parts on the same pool's threads.
//
//   thread_bench [--threads 1,2] [--n 2097152,20000000] [--rounds 41]
//
// Rounds are interleaved (every N, t and mode once per round, in turn, the modes' order
// alternating), so a ratio compares calls made at the same time on a shared machine; each
// timed call follows an untimed one of the same mode (warm caches for N = 2^21, 16 MB). Prints per (N, t, mode) the median time,
// GB/s (8 N bytes read per call), the ratio to the ceiling at the same t and the speedup over
// t = 1, then the same as CSV, then the result's bits at every t (the same for the tree).
#include "baselines.hpp"
#include "bench_util.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/threads.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace treefold;

/// The positive integers of a comma-separated list; throws naming `option` on anything else.
std::vector<std::uint64_t> numbers(const std::string& list, const char* option)
{
    auto out = perf::unsigned_list(list, option);
    if (std::find(out.begin(), out.end(), 0) != out.end()) {
        throw std::invalid_argument(std::string(option) + ": '0' is not a positive integer");
    }
    return out;
}

/// The fast-math sum of x[0, n) in t contiguous parts on the pool's threads, parts added in order.
double ceiling_on(thread_pool& pool, std::size_t t, const double* x, std::size_t n)
{
    std::vector<double> part(t);
    auto body = [&](std::size_t i) {
        const std::size_t b = n * i / t;
        const std::size_t e = n * (i + 1) / t;
        part[i] = perf::fastmath_sum(x + b, e - b);
    };
    pool.run(t, task_ref(body));
    double s = 0.0;
    for (const double v : part) {
        s += v;
    }
    return s;
}

} // namespace

int main(int argc, char** argv)
{
    namespace po = boost::program_options;
    po::options_description desc("thread_bench options");
    desc.add_options()("help", "print the options")(
        "threads", po::value<std::string>()->default_value("1,2"), "thread counts, comma-separated")(
        "n", po::value<std::string>()->default_value("2097152,20000000"), "values per reduce, comma-separated")(
        "rounds", po::value<int>()->default_value(41), "interleaved rounds (the median is taken)");
    std::vector<std::uint64_t> threads;
    std::vector<std::uint64_t> sizes;
    int rounds = 0;
    try {
        po::variables_map vm;
        po::store(po::parse_command_line(argc, argv, desc), vm);
        po::notify(vm);
        if (vm.count("help") != 0) {
            std::cout << desc;
            return 0;
        }
        threads = numbers(vm["threads"].as<std::string>(), "--threads");
        sizes = numbers(vm["n"].as<std::string>(), "--n");
        rounds = vm["rounds"].as<int>();
        if (rounds < 1) {
            throw std::invalid_argument("--rounds must be at least 1");
        }
    } catch (const std::exception& e) { // Program_options' errors and the checks above
        std::fprintf(stderr, "thread_bench: %s\n", e.what());
        return 2;
    }
    std::uint64_t largest = 0;
    for (const auto n : sizes) {
        largest = n > largest ? n : largest;
    }
    std::vector<double> data(largest);
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> d(1.0, 1.5);
    for (auto& x : data) {
        x = -d(rng); // log-likelihood-like values, as kernel_bench
    }
    std::map<std::uint64_t, std::unique_ptr<thread_pool>> pools;
    for (const auto t : threads) {
        pools[t] = std::make_unique<thread_pool>(t);
    }
    const std::vector<std::string> modes = {"ceiling", "tree"};
    std::map<std::tuple<std::uint64_t, std::uint64_t, std::string>, std::vector<double>> ms;
    std::map<std::pair<std::uint64_t, std::uint64_t>, double> result;
    for (int round = -2; round < rounds; ++round) { // two rounds of warm-up
        for (const auto n : sizes) {
            for (const auto t : threads) {
                for (std::size_t k = 0; k < modes.size(); ++k) {
                    // Which mode goes first alternates by round: the first after another N
                    // finds a colder cache.
                    const std::string& mode = modes[(k + static_cast<std::size_t>(round + 2)) % modes.size()];
                    thread_pool& pool = *pools[t];
                    auto once = [&] {
                        ops::plus op;
                        if (mode == "ceiling") {
                            return ceiling_on(pool, static_cast<std::size_t>(t), data.data(), n);
                        }
                        if (t == 1) {
                            return kernel::best::reduce_node(data.data(), n, op); // the reducer without threads
                        }
                        return kernel::reduce_node_split<kernel::best>(data.data(), n, op, kernel::split_context{pool});
                    };
                    // An untimed call first, so every timed call finds the caches as the same
                    // mode left them (else the first mode after the other N pays the misses).
                    volatile double sink = once();
                    (void)sink;
                    const auto start = std::chrono::steady_clock::now();
                    const double r = once();
                    const double took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
                    if (round >= 0) {
                        ms[{n, t, mode}].push_back(took);
                    }
                    if (mode == "tree") {
                        result[{n, t}] = r;
                    }
                }
            }
        }
    }
    std::printf("kernel::best uses %s; %u hardware threads; %d interleaved rounds, medians.\n", kernel::best_arch_name(),
                std::thread::hardware_concurrency(), rounds);
    std::printf("%-10s %3s %-8s %10s %8s %10s %9s\n", "N", "t", "mode", "median ms", "GB/s", "/ceiling", "speedup");
    std::vector<std::string> csv;
    for (const auto n : sizes) {
        for (const auto t : threads) {
            for (const auto& mode : modes) {
                const auto& v = ms[{n, t, mode}];
                const double med = perf::quantile(v, 0.5);
                const double ceiling = perf::quantile(ms[{n, t, "ceiling"}], 0.5);
                const double one = perf::quantile(ms[{n, threads.front(), mode}], 0.5);
                const double gbs = 8.0 * static_cast<double>(n) / (med * 1e6);
                std::printf("%-10" PRIu64 " %3" PRIu64 " %-8s %10.3f %8.2f %9.2fx %8.2fx\n", n, t, mode.c_str(), med,
                            gbs, med / ceiling, one / med);
                char line[512];
                std::snprintf(line, sizeof line, "%s,%" PRIu64 ",%" PRIu64 ",%s,%zu,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f",
                              perf::machine().c_str(), n, t, mode.c_str(), v.size(), med, perf::quantile(v, 0.1),
                              perf::quantile(v, 0.9), gbs, med / ceiling, one / med);
                csv.emplace_back(line);
            }
        }
    }
    std::printf("\nmachine,N,threads,mode,rounds,median_ms,p10_ms,p90_ms,GBps,ratio_ceiling,speedup_vs_first_t\n");
    for (const auto& l : csv) {
        std::printf("%s\n", l.c_str());
    }
    std::printf("\nbits of the tree's result:\n");
    bool same = true;
    for (const auto n : sizes) {
        for (const auto t : threads) {
            std::printf("N=%" PRIu64 " t=%" PRIu64 ": %016" PRIx64 "\n", n, t, std::bit_cast<std::uint64_t>(result[{n, t}]));
            same = same && std::bit_cast<std::uint64_t>(result[{n, t}]) == std::bit_cast<std::uint64_t>(result[{n, threads.front()}]);
        }
    }
    std::printf("%s\n", same ? "the same bits at every t" : "BITS DIFFER BETWEEN THREAD COUNTS");
    return same ? 0 : 1;
}
