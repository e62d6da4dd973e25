// The distributed reduction benchmark: treefold's reproducible all_reduce with each
// exchange against the common irreproducible codes, on a `.binpsllh` file or a synthetic
// array, for any distribution policy.
//
//   mpirun -n P reduction_bench [FILE | --n N --kind loglik|mixed|cancel]
//          [--distribution D[,D...]] [--modes treefold,reduce,one_call,c_one_call,c_context,baseline,fast,allreduce1,rows]
//          [--width K]
//          [--exchanges direct,binomial,fibonacci,binary,one_sided,schedule_best,native,automatic
//                       (or schedule_rd, schedule_heuristic)]
//          [--reps 100] [--discard 8] [--no-header]
//
// Modes: `treefold` (reducer with kernel::best and the given exchange; `automatic` is
// printed as automatic:CHOICE), `baseline`
// (std::accumulate + MPI_Allreduce), `fast` (the -ffast-math vectorised sum of
// kernel_fastmath_ceiling.cpp + MPI_Allreduce), `allreduce1` (MPI_Allreduce of one double and
// nothing else: the latency floor any method pays), `rows` (synthetic input only: N rows of
// `--width` K values through row_reducer::all_reduce(local, result), the form that allocates
// nothing per call; printed as mode rows_kK, for the exchanges direct and binomial).
//
// Several distributions (a comma list) are timed in one run: every method once per
// distribution, all interleaved call by call.
//
// Protocol: load and distribute once; per call a barrier, MPI_Wtime around the call, max over
// ranks; methods interleaved call by call; `--reps` calls each, the first and last `--discard`
// dropped; median, 1st and 99th percentile. Messages and bytes are per call summed over ranks
// (the reducer's own point-to-point counters; `na` where MPI's collective hides them, and 0
// for the native exchange, whose messages are the MPI library's). CSV on stdout, comment lines start with '#'.
#include "baselines.hpp"
#include "bench_options.hpp"
#include "bench_util.hpp"
#include "treefold/all_reduce.hpp"
#include "treefold/all_exchanges.hpp"
#include "treefold/collective/distribute.hpp"
#include "treefold/io/synthetic.hpp"
#include "treefold/io/values_file.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"
#include "treefold/row_reducer.hpp"
#include "treefold/treefold.h"

#include <boost/mpi.hpp>
#include <boost/program_options.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace mpi = boost::mpi;
namespace po = boost::program_options;
using namespace treefold;

namespace {

struct method {
    std::string distribution;
    std::string mode;
    std::string exchange;
    std::function<double()> call;
    std::function<net::counters()> counts; // empty: MPI hides them
};

/// The exchanges the rows mode runs (row_reducer takes exchange::direct and exchange::tree).
bool row_exchange(const std::string& name) { return name == "direct" || name == "binomial"; }

bool selected(const std::vector<std::string>& list, const std::string& name)
{
    return std::find(list.begin(), list.end(), name) != list.end();
}

/// A reproducible-sum method over exchange E (the reducer lives as long as the method).
template <class E>
method treefold_method(const std::string& exchange_name, const mpi::communicator& world, const layout::block_layout& l,
                       const std::vector<double>& local, bool to_root = false)
{
    auto r = std::make_shared<reducer<double, std::plus<double>, kernel::best, E>>(world, l);
    std::string name = exchange_name;
    if constexpr (std::is_same_v<E, exchange::automatic>) {
        name += ":" + std::string(r->exchange_used());
    }
    if (to_root) { // reduce to rank 0 (the result reported is rank 0's)
        return {"", "reduce", name, [r, &local] { return r->reduce(local, 0).value_or(0.0); },
                [r] { return r->last_counters(); }};
    }
    return {"", "treefold", name, [r, &local] { return r->all_reduce(local); },
            [r] { return r->last_counters(); }};
}

/// N rows of k values through row_reducer over exchange E, into a result buffer kept by the
/// method (the reducer and the buffer live as long as the method).
template <class E>
method rows_method(const std::string& exchange_name, const mpi::communicator& world, const layout::block_layout& l,
                   std::size_t k, const std::vector<double>& local)
{
    auto r = std::make_shared<row_reducer<double, ops::plus, E>>(world, l, k);
    auto out = std::make_shared<std::vector<double>>(k);
    return {"", "rows_k" + std::to_string(k), exchange_name, [r, out, &local] {
                r->all_reduce(local, *out);
                return out->front();
            },
            [r] { return r->last_counters(); }};
}

} // namespace

int main(int argc, char** argv)
{
    mpi::environment env(argc, argv);
    mpi::communicator world;
    std::uint64_t n = 1u << 20;
    std::string kind = "loglik";
    std::string dist_name = "even-lower";
    std::string modes_arg = "treefold,baseline,fast,allreduce1";
    std::string exchanges_arg = "direct,binomial,fibonacci,binary,one_sided,schedule_best";
    std::string dataset;
    int reps = 100;
    int discard = 8;
    std::size_t width = 3;
    po::options_description desc("reduction_bench");
    desc.add_options()("help", "this text")("file", po::value<std::string>(), "a .binpsllh or text value file")(
        "n", po::value(&n)->default_value(n), "synthetic: number of values")(
        "kind", po::value(&kind)->default_value(kind), "synthetic: loglik | mixed | cancel")(
        "distribution", po::value(&dist_name)->default_value(dist_name),
        "even-lower | even-upper | power-of-two | aligned:ALPHA, or a comma list of them")(
        "modes", po::value(&modes_arg)->default_value(modes_arg), "comma list of modes")(
        "exchanges", po::value(&exchanges_arg)->default_value(exchanges_arg),
        ("comma list of treefold exchanges (\"core\": every exchange of the core's registry, automatic "
         "last): " + exchange::name_list<treefold::all_exchanges>()).c_str())(
        "dataset", po::value(&dataset), "name in the CSV (default: file name or synthetic-KIND)")(
        "reps", po::value(&reps)->default_value(reps), "timed calls per method")(
        "width", po::value(&width)->default_value(width), "rows mode: values per row")(
        "discard", po::value(&discard)->default_value(discard), "calls dropped at each end")(
        "no-header", "omit the CSV header line");
    const auto parsed = perf::parse_options_with_file(argc, argv, "reduction_bench", desc, world);
    if (!parsed) {
        return 2;
    }
    const po::variables_map& vm = *parsed;
    // "core": the registry's list, not a copy of it
    const auto exchanges = exchanges_arg == "core"
                               ? std::vector<std::string>(exchange::core_exchanges::names.begin(),
                                                          exchange::core_exchanges::names.end())
                               : perf::split_list(exchanges_arg);
    std::vector<layout::distribution> dists;
    std::optional<io::synthetic_kind> synthetic;
    try {
        for (const auto& d : perf::split_list(dist_name)) {
            dists.push_back(layout::distribution::parse(d));
        }
        if (dists.empty()) {
            throw std::invalid_argument("--distribution names no distribution");
        }
        if (!vm.count("file")) {
            synthetic = io::parse_synthetic_kind(kind);
        }
        if (reps < 1 || discard < 0 || 2 * discard >= reps) {
            throw std::invalid_argument("need reps >= 1 and 0 <= 2 * discard < reps");
        }
        for (const auto& m : perf::split_list(modes_arg)) {
            if (m != "treefold" && m != "reduce" && m != "one_call" && m != "c_one_call" && m != "c_context" && m != "baseline" &&
                m != "fast" && m != "allreduce1" && m != "rows") {
                throw std::invalid_argument("unknown mode '" + m + "'");
            }
        }
        for (const auto& e : exchanges) {
            exchange::visit_by_name<treefold::all_exchanges>(e, [](auto) {}); // throws naming the known exchanges
        }
        if (selected(perf::split_list(modes_arg), "rows")) {
            if (!synthetic || width == 0) {
                throw std::invalid_argument("the rows mode needs synthetic input (--n, --kind) and --width > 0");
            }
            for (const auto& e : exchanges) {
                if (!row_exchange(e)) {
                    throw std::invalid_argument("the rows mode takes the exchanges direct and binomial (row_reducer's), not '" +
                                                e + "'");
                }
            }
        }
    } catch (const std::exception& e) {
        if (world.rank() == 0) {
            std::fprintf(stderr, "reduction_bench: %s (see --help)\n", e.what());
        }
        return 2;
    }
    if (perf::help_requested(vm, desc, world)) {
        return 0;
    }
    const auto modes = perf::split_list(modes_arg);
    const int p = world.size();

    // Load once: the root reads the file and scatters the blocks; synthetic values are computed
    // where they live.
    std::vector<double> all;
    if (!synthetic) {
        const std::string file = vm["file"].as<std::string>();
        try {
            n = collective::read_on_root(world, file, all);
        } catch (const io::file_error& e) {
            if (world.rank() == 0) {
                std::fprintf(stderr, "reduction_bench: %s\n", e.what());
            }
            return 2;
        }
        if (dataset.empty()) {
            dataset = std::filesystem::path(file).stem().string();
        }
    } else if (dataset.empty()) {
        dataset = "synthetic-" + kind;
    }
    if (n == 0) {
        if (world.rank() == 0) {
            std::fprintf(stderr, "reduction_bench: the input holds no values (N = 0): there is nothing to reduce\n");
        }
        return 2;
    }
    // One layout and one local block per distribution; `locals` never reallocates, the methods
    // hold references into it.
    std::vector<std::vector<double>> locals;
    locals.reserve(dists.size());
    std::vector<std::vector<double>> row_locals; // rows mode: the block's rows, row-major
    row_locals.reserve(dists.size());
    std::vector<method> methods;
    const auto c_result = [](int rc, double value) {
        if (rc != MPI_SUCCESS) {
            throw std::runtime_error(std::string("C API: ") + treefold_last_error());
        }
        return value;
    };
    for (const auto& dist : dists) {
        const auto l = layout::block_layout::from_counts(dist.counts(n, p));
        if (synthetic) {
            const auto b = l.block_of(world.rank());
            locals.push_back(io::synthetic_values(*synthetic, b.start, b.count));
        } else {
            locals.push_back(collective::scatter_blocks(world, all, l));
        }
        const std::vector<double>& local = locals.back();
        const std::size_t first = methods.size();
        if (selected(modes, "treefold")) {
            for (const auto& e : exchanges) {
                methods.push_back(exchange::visit_by_name<treefold::all_exchanges>(e, [&](auto type) {
                    return treefold_method<typename decltype(type)::type>(e, world, l, local);
                }));
            }
        }
        if (selected(modes, "reduce")) {
            for (const auto& e : exchanges) {
                methods.push_back(exchange::visit_by_name<treefold::all_exchanges>(e, [&](auto type) {
                    return treefold_method<typename decltype(type)::type>(e, world, l, local, true);
                }));
            }
        }
        if (selected(modes, "rows")) { // row_reducer takes the direct and the tree exchanges
            const auto b = l.block_of(world.rank());
            row_locals.push_back(io::synthetic_values(*synthetic, b.start * width, b.count * width));
            for (const auto& e : exchanges) { // only direct and binomial: checked with the options
                if (e == "direct") {
                    methods.push_back(rows_method<exchange::direct>(e, world, l, width, row_locals.back()));
                } else {
                    methods.push_back(rows_method<exchange::tree<>>(e, world, l, width, row_locals.back()));
                }
            }
        }
        if (selected(modes, "one_call")) { // treefold::all_reduce: the plan cached on the communicator
            methods.push_back({"", "one_call", "automatic", [&world, &local] { return treefold::all_reduce(world, local); }, {}});
        }
        // The C API (treefold.h): the one-call form (plan cached on the communicator; with
        // several distributions every call replans, as the count pattern changes) and a context.
        if (selected(modes, "c_one_call")) {
            methods.push_back({"", "c_one_call", "automatic", [&world, &local, c_result] {
                                   double out = 0;
                                   return c_result(treefold_allreduce_c(local.data(), &out,
                                                                        static_cast<std::int64_t>(local.size()),
                                                                        MPI_DOUBLE, MPI_SUM, static_cast<MPI_Comm>(world)),
                                                   out);
                               }, {}});
        }
        if (selected(modes, "c_context")) {
            treefold_context raw = nullptr;
            c_result(treefold_context_create(static_cast<MPI_Comm>(world), static_cast<std::int64_t>(local.size()),
                                             MPI_DOUBLE, MPI_SUM, &raw),
                     0);
            std::shared_ptr<treefold_context_s> ctx(raw, [](treefold_context c) { treefold_context_destroy(&c); });
            methods.push_back({"", "c_context", "automatic", [ctx, &local, c_result] {
                                   double out = 0;
                                   return c_result(treefold_allreduce_ctx(ctx.get(), local.data(), &out), out);
                               }, {}});
        }
        if (selected(modes, "baseline")) {
            methods.push_back({"", "baseline", "mpi_allreduce", [&world, &local] {
                                   return perf::mpi_sum(std::accumulate(local.begin(), local.end(), 0.0), world);
                               }, {}});
        }
        if (selected(modes, "fast")) {
            methods.push_back({"", "fast", "mpi_allreduce", [&world, &local] {
                                   return perf::mpi_sum(perf::fastmath_sum(local.data(), local.size()), world);
                               }, {}});
        }
        if (selected(modes, "allreduce1")) {
            methods.push_back({"", "allreduce1", "mpi_allreduce", [&world] { return perf::mpi_sum(1.0, world); }, {}});
        }
        for (std::size_t i = first; i < methods.size(); ++i) {
            methods[i].distribution = dist.name();
        }
    }
    all = {};

    if (world.rank() == 0) {
        if (!vm.count("no-header")) {
            std::printf("machine,p,oversubscribed,n,dataset,mode,distribution,exchange,reps,median_us,p1_us,p99_us,"
                        "messages,bytes,result,result_bits\n");
        }
        std::fflush(stdout);
    }
    // Methods interleaved call by call, so background load hits all of them alike.
    std::vector<std::vector<double>> times(methods.size(), std::vector<double>(static_cast<std::size_t>(reps)));
    std::vector<double> results(methods.size());
    for (int k = 0; k < reps; ++k) {
        for (std::size_t i = 0; i < methods.size(); ++i) {
            world.barrier();
            const double t0 = MPI_Wtime();
            results[i] = methods[i].call();
            const double dt = MPI_Wtime() - t0;
            times[i][static_cast<std::size_t>(k)] = mpi::all_reduce(world, dt, mpi::maximum<double>()) * 1e6;
        }
    }
    for (std::size_t i = 0; i < methods.size(); ++i) {
        const auto& m = methods[i];
        const auto& t = times[i];
        const double result = results[i];
        const std::vector<double> kept(t.begin() + discard, t.end() - discard);
        std::string messages = "na";
        std::string bytes = "na";
        if (m.counts) {
            const auto c = m.counts();
            messages = std::to_string(mpi::all_reduce(world, c.messages, std::plus<std::uint64_t>()));
            bytes = std::to_string(mpi::all_reduce(world, c.bytes, std::plus<std::uint64_t>()));
        }
        if (world.rank() == 0) {
            std::uint64_t bits = 0;
            std::memcpy(&bits, &result, sizeof bits);
            std::printf("%s,%d,%s,%" PRIu64 ",%s,%s,%s,%s,%zu,%.3f,%.3f,%.3f,%s,%s,%.17g,%016" PRIX64 "\n",
                        perf::machine().c_str(), p, perf::oversubscribed(p) ? "yes" : "no", n, dataset.c_str(),
                        m.mode.c_str(), m.distribution.c_str(), m.exchange.c_str(), kept.size(),
                        perf::quantile(kept, 0.5), perf::quantile(kept, 0.01), perf::quantile(kept, 0.99),
                        messages.c_str(), bytes.c_str(), result, bits);
            std::fflush(stdout);
        }
    }
    return 0;
}
