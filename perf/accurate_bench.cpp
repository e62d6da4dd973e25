// The accurate sum against the plain tree sum: time and error.
//
//   mpirun -n P accurate_bench [--sizes 100000,20000000] [--reps 41] [--data DIR] [--binned]
//
// Times (CSV `time` rows): per size N, values spread evenly over the P ranks; per call a
// barrier, MPI_Wtime around the call, max over ranks; the methods interleaved call by call
// (so background load hits all alike), `--reps` calls each, median and 10th/90th percentile,
// and each method's median over the plain tree sum's. Methods: `plain` (reducer<double>,
// ops::plus, kernel::best), `accurate` (accurate_reducer<kernel::accurate_best>),
// `accurate_scalar` (accurate_reducer<kernel::accurate_scalar>), all with exchange::automatic;
// `local_plain` / `local_accurate` time the local kernel alone on each rank's block (no
// exchange). Values: per-site log-likelihood-like (negative, lognormal magnitudes).
// `--binned` adds the binned sum (kernel/binned.hpp): methods `binned` (binned_reducer<3>),
// `binned2` (binned_reducer<2>) and `local_binned` (kernel::binned_best<3> on the block), in
// the same interleaving, and four error columns at the end of each error row; and, all
// with exchange::native, `binned_native` (binned_reducer<3>: its commutative path, one
// accumulator per rank under a commutative MPI_Op), `binned_native_ordered` (the same sum
// through the non-commutative frontier records, as for any operator) and `plain_native`
// (reducer<double>).
//
// Errors (CSV `error` rows, computed at this P; the tree sums are the same bits at every P):
// for each .binpsllh data set in DIR and for synthetic inputs of condition number about 2^k,
// the distance in ulps from the correctly rounded sum (test/support/exact_sum.hpp) of the
// plain tree sum, std::accumulate (left to right) and the accurate sum.
#include "bench_options.hpp"
#include "bench_util.hpp"
#include "support/exact_sum.hpp"
#include "treefold/accurate_reducer.hpp"
#include "treefold/binned_reducer.hpp"
#include "treefold/kernel/accurate.hpp"
#include "treefold/kernel/binned.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/io/values_file.hpp"
#include "treefold/reducer.hpp"

#include <boost/mpi.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace treefold;
namespace mpi = boost::mpi;

/// ops::binned_plus without its order_free declaration: the native exchange then reduces
/// the binned sum through frontier records under a non-commutative MPI_Op, like any operator.
struct ordered_binned_plus : ops::binned_plus {
    static constexpr bool order_free = false;
};

std::vector<double> loglik_like(std::uint64_t start, std::uint64_t count)
{
    std::vector<double> v(count);
    for (std::uint64_t i = 0; i < count; ++i) {
        std::mt19937_64 rng(start + i); // value i depends on its global index only
        std::lognormal_distribution<double> d(1.0, 1.5);
        v[i] = -d(rng);
    }
    return v;
}

struct method {
    std::string name;
    std::function<double()> call;
};

void time_size(const mpi::communicator& world, std::uint64_t n, int reps, bool binned_too)
{
    const int p = world.size();
    reducer<double> plain(world, n);
    accurate_reducer<> accurate(world, n);
    accurate_reducer<kernel::accurate_scalar> accurate_scalar(world, n);
    const auto b = plain.local_block();
    const std::vector<double> local = loglik_like(b.count > 0 ? b.start : 0, b.count);
    const std::span<const double> span(local);
    std::vector<method> methods = {
        {"plain", [&] { return plain.all_reduce(span); }},
        {"accurate", [&] { return accurate.all_reduce(span); }},
        {"accurate_scalar", [&] { return accurate_scalar.all_reduce(span); }},
        {"local_plain",
         [&] {
             ops::plus op;
             return local.empty() ? 0.0 : kernel::best::reduce_node(local.data(), local.size(), op);
         }},
        {"local_accurate",
         [&] { return local.empty() ? 0.0 : kernel::accurate_best::sum(local.data(), local.size()).to_double(); }}};
    std::optional<binned_reducer<3>> binned3;
    std::optional<binned_reducer<2>> binned2;
    std::optional<binned_reducer<3, kernel::binned_best<3>, exchange::native>> binned_native;
    std::optional<detail::doubles_reducer<binned<3>, kernel::binned_best<3>, ordered_binned_plus, exchange::native>>
        binned_ordered;
    std::optional<reducer<double, ops::plus, kernel::best, exchange::native>> plain_native;
    if (binned_too) {
        binned_native.emplace(world, n);
        binned_ordered.emplace(world, n);
        plain_native.emplace(world, n);
        binned3.emplace(world, n);
        binned2.emplace(world, n);
        methods.push_back({"binned", [&] { return binned3->all_reduce(span); }});
        methods.push_back({"binned2", [&] { return binned2->all_reduce(span); }});
        methods.push_back(
            {"local_binned", [&] { return kernel::binned_best<3>::sum(local.data(), local.size()).to_double(); }});
        methods.push_back({"binned_native", [&] { return binned_native->all_reduce(span); }});
        methods.push_back({"binned_native_ordered", [&] { return binned_ordered->all_reduce(span); }});
        methods.push_back({"plain_native", [&] { return plain_native->all_reduce(span); }});
    }
    std::vector<std::vector<double>> times(methods.size());
    double sink = 0.0;
    for (int k = 0; k < reps; ++k) {
        for (std::size_t i = 0; i < methods.size(); ++i) {
            world.barrier();
            const double t0 = MPI_Wtime();
            sink += methods[i].call();
            const double dt = MPI_Wtime() - t0;
            times[i].push_back(mpi::all_reduce(world, dt, mpi::maximum<double>()) * 1e6);
        }
    }
    if (world.rank() == 0) {
        const double base = perf::quantile(times[0], 0.5);
        const double base_local = perf::quantile(times[3], 0.5);
        for (std::size_t i = 0; i < methods.size(); ++i) {
            const double med = perf::quantile(times[i], 0.5);
            const bool is_local = methods[i].name.rfind("local_", 0) == 0;
            std::printf("time,%s,%d,%s,%llu,%s,%s,%d,%.3f,%.3f,%.3f,%.3f\n", perf::machine().c_str(), p,
                        perf::oversubscribed(p) ? "oversubscribed" : "cores", static_cast<unsigned long long>(n),
                        methods[i].name.c_str(), accurate.exchange_used().data(), reps, med,
                        perf::quantile(times[i], 0.1), perf::quantile(times[i], 0.9), med / (is_local ? base_local : base));
        }
        std::fprintf(stderr, "# (checksum %g)\n", sink);
    }
}

/// One error row: the three sums of xs (distributed evenly) against the correctly rounded one
/// (and the binned sums with K = 3 and 2 when binned_too).
void error_row(const mpi::communicator& world, const std::string& name, const std::vector<double>& xs, bool binned_too)
{
    const std::uint64_t n = xs.size();
    reducer<double> plain(world, n);
    accurate_reducer<> accurate(world, n);
    const auto b = plain.local_block();
    const std::span<const double> local(xs.data() + (b.count > 0 ? b.start : 0), b.count);
    const double tree = plain.all_reduce(local);
    const double acc = accurate.all_reduce(local);
    double bin3 = 0.0;
    double bin2 = 0.0;
    if (binned_too) {
        bin3 = binned_reducer<3>(world, n).all_reduce(local);
        bin2 = binned_reducer<2>(world, n).all_reduce(local);
    }
    if (world.rank() == 0) {
        const double exact = testing::exact_rounded_sum(xs);
        const double left_to_right = std::accumulate(xs.begin(), xs.end(), 0.0);
        testing::exact_sum abs_sum;
        for (const double x : xs) {
            abs_sum.add(std::fabs(x));
        }
        const double cond = abs_sum.rounded() / std::fabs(exact);
        // relative errors too: ulps mean little where a result is 0 or of the wrong sign
        auto rel = [exact](double r) { return std::fabs(r - exact) / std::fabs(exact); };
        std::printf("error,%s,%d,%llu,%.3g,%.17g,%llu,%llu,%llu,%.2g,%.2g,%.2g", name.c_str(), world.size(),
                    static_cast<unsigned long long>(n), cond, exact,
                    static_cast<unsigned long long>(testing::ulps_apart(tree, exact)),
                    static_cast<unsigned long long>(testing::ulps_apart(left_to_right, exact)),
                    static_cast<unsigned long long>(testing::ulps_apart(acc, exact)), rel(tree), rel(left_to_right), rel(acc));
        if (binned_too) {
            std::printf(",%llu,%llu,%.2g,%.2g", static_cast<unsigned long long>(testing::ulps_apart(bin3, exact)),
                        static_cast<unsigned long long>(testing::ulps_apart(bin2, exact)), rel(bin3), rel(bin2));
        }
        std::printf("\n");
    }
}

} // namespace

int main(int argc, char** argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    namespace po = boost::program_options;
    std::string sizes_arg = "100000,20000000";
    std::string data_dir = TREEFOLD_SHARED_DIR "/data/psllh";
    int reps = 41;
    po::options_description desc("accurate_bench");
    desc.add_options()("help", "this text")("sizes", po::value(&sizes_arg)->default_value(sizes_arg),
                                            "comma list of N to time (empty: none)")(
        "reps", po::value(&reps)->default_value(reps), "timed calls per method and size")(
        "data", po::value(&data_dir)->default_value(data_dir), "folder of .binpsllh data sets")(
        "no-errors", "skip the error rows")("binned", "also the binned sum (methods and error columns)");
    const auto parsed = perf::parse_options(argc, argv, "accurate_bench", desc, world);
    if (!parsed) {
        return 2;
    }
    if (perf::help_requested(*parsed, desc, world)) {
        return 0;
    }
    if (reps < 1) {
        if (world.rank() == 0) {
            std::fprintf(stderr, "accurate_bench: --reps must be positive\n");
        }
        return 2;
    }
    const bool binned_too = parsed->count("binned") > 0;
    if (world.rank() == 0) {
        std::printf("# time,machine,p,cores,N,method,exchange,reps,median_us,p10_us,p90_us,ratio_to_plain\n");
        std::printf("# error,input,p,N,condition,exact,ulps_plain_tree,ulps_accumulate,ulps_accurate,rel_plain_tree,rel_accumulate,rel_accurate%s\n",
                    binned_too ? ",ulps_binned,ulps_binned2,rel_binned,rel_binned2" : "");
    }
    for (const auto& s : perf::split_list(sizes_arg)) {
        time_size(world, std::stoull(s), reps, binned_too);
    }
    if (parsed->count("no-errors")) {
        return 0;
    }
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(data_dir, ec)) {
        if (entry.path().extension() == ".binpsllh") {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    if (files.empty() && world.rank() == 0) {
        std::fprintf(stderr, "# no .binpsllh in %s: data-set rows skipped\n", data_dir.c_str());
    }
    for (const auto& f : files) {
        error_row(world, f.stem().string(), io::read_values(f), binned_too);
    }
    error_row(world, "1e16+1-1e16", {1e16, 1.0, -1e16}, binned_too);
    for (int bits = 10; bits <= 100; bits += 10) {
        error_row(world, "cond~2^" + std::to_string(bits), testing::ill_conditioned(static_cast<std::uint64_t>(bits), 100000, 30, bits), binned_too);
    }
    return 0;
}
