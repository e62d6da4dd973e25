// Local kernel benchmark: ns per element for one tree node of N doubles (the whole array),
// for the scalar tree, each xsimd backend, kernel::best, std::accumulate (left to right)
// and the irreproducible fast-math sum (the ceiling, kernel_fastmath_ceiling.cpp).
//
//   kernel_bench [--sizes=small|N,N,...] [--benchmark_repetitions=15] [google benchmark flags]
//
// --sizes=small measures the node sizes of small arrays (2 ... 4096, powers of two and odd
// sizes between them) instead of the default 64 ... 21,410,970.
//
// After Google Benchmark's own table it prints, per N, the median ns/element of every mode
// and its ratio to the ceiling and to std::accumulate measured in the same run, then the
// same as CSV (machine, p, N, mode, repetitions, median, p1, p99, ratios, CPU-time median).
// Medians are of wall time per element; on a shared machine compare the CPU-time column too.
#include "baselines.hpp"
#include "bench_util.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/kernel/simd.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace treefold;

std::vector<std::size_t> sizes = {64, 1000, 100000, std::size_t{1} << 20, 21410970};
const std::vector<std::size_t> small_sizes = {2,   3,   4,   7,   8,   15,  16,   17,   31,   32,   63,  64,
                                              100, 127, 128, 230, 256, 460, 512, 1000, 1024, 1602, 2048, 4096};
const std::vector<std::string> modes = {"fastmath_ceiling", "accumulate", "scalar_tree", "sse2",
                                        "avx2", "avx512f", "best"};

/// Per-site log-likelihood-like values (negative, varied magnitude), shared by all modes.
/// The first element sits 16 bytes past a 64-byte boundary, where glibc's malloc puts large
/// blocks (so every 64-byte register load straddles two cache lines), unless
/// TREEFOLD_BENCH_ALIGNED=1 asks for a 64-byte aligned start.
const double* data()
{
    static const std::vector<double> storage = [] {
        std::vector<double> v(*std::max_element(sizes.begin(), sizes.end()) + 16);
        std::mt19937_64 rng(42);
        std::lognormal_distribution<double> d(1.0, 1.5);
        for (auto& x : v) {
            x = -d(rng);
        }
        return v;
    }();
    static const double* start = [] {
        const auto addr = reinterpret_cast<std::uintptr_t>(storage.data());
        const std::uintptr_t aligned = (addr + 63) / 64 * 64;
        const char* env = std::getenv("TREEFOLD_BENCH_ALIGNED");
        const bool want_aligned = env != nullptr && env[0] == '1';
        return storage.data() + (aligned - addr) / sizeof(double) + (want_aligned ? 0 : 2);
    }();
    return start;
}

bool aligned_start() { return reinterpret_cast<std::uintptr_t>(data()) % 64 == 0; }

template <class F>
void run(benchmark::State& state, F&& reduce)
{
    const auto n = static_cast<std::size_t>(state.range(0));
    const double* x = data();
    for (auto _ : state) {
        double r = reduce(x, n);
        benchmark::DoNotOptimize(r);
    }
    state.counters["N"] = static_cast<double>(n);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}

void register_all()
{
    auto add = [](const std::string& mode, auto fn) {
        auto* b = benchmark::RegisterBenchmark(mode.c_str(), [fn](benchmark::State& s) { run(s, fn); });
        for (const auto n : sizes) {
            b->Arg(static_cast<std::int64_t>(n));
        }
        b->Unit(benchmark::kMicrosecond)->MinTime(0.05);
    };
    add("fastmath_ceiling", [](const double* x, std::size_t n) { return perf::fastmath_sum(x, n); });
    add("accumulate", [](const double* x, std::size_t n) { return std::accumulate(x, x + n, 0.0); });
    add("scalar_tree", [](const double* x, std::size_t n) {
        ops::plus op;
        return kernel::scalar::reduce_node(x, n, op);
    });
    add("sse2", [](const double* x, std::size_t n) {
        ops::plus op;
        return kernel::simd<xsimd::sse2>::reduce_node(x, n, op);
    });
    if (kernel::simd_supported("avx2")) {
        add("avx2", [](const double* x, std::size_t n) {
            ops::plus op;
            return kernel::simd<xsimd::avx2>::reduce_node(x, n, op);
        });
    }
    if (kernel::simd_supported("avx512f")) {
        add("avx512f", [](const double* x, std::size_t n) {
            ops::plus op;
            return kernel::simd<xsimd::avx512f>::reduce_node(x, n, op);
        });
    }
    add("best", [](const double* x, std::size_t n) {
        ops::plus op;
        return kernel::best::reduce_node(x, n, op);
    });
}

/// Console output as usual, and every repetition's ns/element kept for the summary.
class collecting_reporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override
    {
        ConsoleReporter::ReportRuns(runs);
        for (const auto& r : runs) {
            if (r.run_type != Run::RT_Iteration || r.error_occurred) {
                continue;
            }
            const std::string name = r.run_name.function_name;
            const auto n = static_cast<std::size_t>(r.counters.at("N").value);
            // real time per iteration, in the benchmark's unit (us) -> ns per element
            samples[{n, name}].push_back(r.GetAdjustedRealTime() * 1e3 / static_cast<double>(n));
            cpu_samples[{n, name}].push_back(r.GetAdjustedCPUTime() * 1e3 / static_cast<double>(n));
        }
    }
    std::map<std::pair<std::size_t, std::string>, std::vector<double>> samples;
    std::map<std::pair<std::size_t, std::string>, std::vector<double>> cpu_samples;
};

} // namespace

/// Takes --sizes=... out of argv (Google Benchmark rejects flags it does not know).
bool parse_sizes(int& argc, char** argv)
{
    int kept = 1;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg.rfind("--sizes=", 0) != 0) {
            argv[kept++] = argv[a];
            continue;
        }
        const std::string list = arg.substr(8);
        if (list == "small") {
            sizes = small_sizes;
            continue;
        }
        sizes.clear();
        std::size_t pos = 0;
        while (pos < list.size()) {
            const std::size_t end = std::min(list.find(',', pos), list.size());
            const std::string item = list.substr(pos, end - pos);
            char* stop = nullptr;
            const unsigned long long n = std::strtoull(item.c_str(), &stop, 10);
            if (item.empty() || *stop != '\0' || n == 0) {
                std::fprintf(stderr, "kernel_bench: --sizes: '%s' is not a positive size\n", item.c_str());
                return false;
            }
            sizes.push_back(static_cast<std::size_t>(n));
            pos = end + 1;
        }
    }
    argc = kept;
    return !sizes.empty();
}

int main(int argc, char** argv)
{
    if (!parse_sizes(argc, argv)) {
        return 1;
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        return 1;
    }
    (void)data();
    register_all();
    collecting_reporter rep;
    benchmark::RunSpecifiedBenchmarks(&rep);

    std::printf("\nkernel::best uses %s; input starts %s. Median ns/element; ratios against the same "
                "run's medians.\n",
                kernel::best_arch_name(), aligned_start() ? "64-byte aligned" : "16 bytes past a 64-byte boundary");
    std::printf("%-10s %-17s %10s %11s %11s %12s\n", "N", "mode", "ns/elem", "/ceiling", "/accumulate",
                "cpu ns/elem");
    std::vector<std::string> csv;
    for (const auto n : sizes) {
        auto median_of = [&](const std::string& m) {
            auto it = rep.samples.find({n, m});
            return it == rep.samples.end() ? 0.0 : perf::quantile(it->second, 0.5);
        };
        const double ceiling = median_of("fastmath_ceiling");
        const double acc = median_of("accumulate");
        for (const auto& m : modes) {
            auto it = rep.samples.find({n, m});
            if (it == rep.samples.end()) {
                continue;
            }
            const double med = perf::quantile(it->second, 0.5);
            const double cpu = perf::quantile(rep.cpu_samples[{n, m}], 0.5);
            std::printf("%-10zu %-17s %10.4f %10.2fx %10.2fx %12.4f\n", n, m.c_str(), med, med / ceiling, med / acc,
                        cpu);
            char line[512];
            std::snprintf(line, sizeof line, "%s,1,%zu,%s,%zu,%.5f,%.5f,%.5f,%.4f,%.4f,%.5f", perf::machine().c_str(),
                          n, m.c_str(), it->second.size(), med, perf::quantile(it->second, 0.01),
                          perf::quantile(it->second, 0.99), med / ceiling, med / acc, cpu);
            csv.emplace_back(line);
        }
    }
    std::printf("\nmachine,p,N,mode,repetitions,median_ns_per_elem,p1,p99,ratio_ceiling,ratio_accumulate,"
                "cpu_median_ns_per_elem\n");
    for (const auto& l : csv) {
        std::printf("%s\n", l.c_str());
    }
    return 0;
}
