// Messages per reproducible all_reduce / reduce call for each exchange and distribution policy,
// computed from the plan alone: one process, no mpirun, any p.
//
//   message_counts [--p P] [--n N]... [--sweep] [--distributions LIST]
//
// CSV on stdout: p,n,distribution,exchange,messages_reduce,messages_unbuffered,
// messages_allreduce,bound. messages_reduce is the exchange (a reduce to the exchange's
// finisher; another root costs one message more), messages_allreduce adds the broadcast.
// Exchanges: direct, tree (every shape), one_sided (the direct routes, unbuffered) and
// schedule_best (the schedule's own count; the result is everywhere, so all three columns
// are the same and no broadcast is added).
// bound is the target bound (p-1)(log2((N-1)/p)+1) on the direct exchange's messages, "na"
// where N - 1 < p.
#include "bench_util.hpp"
#include "treefold/exchange/modelled_schedules.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/layout/distribution.hpp"
#include "treefold/layout/plan_messages.hpp"

#include <boost/program_options.hpp>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <exception>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace po = boost::program_options;
using treefold::layout::index_t;

namespace {

// Accepts a decimal count or 2^K, so sizes like 2^21 can be written as such.
index_t parse_size(const std::string& text)
{
    std::size_t used = 0;
    index_t value = 0;
    if (const auto caret = text.find('^'); caret != std::string::npos) {
        const auto base = std::stoull(text.substr(0, caret), &used);
        if (base != 2 || used != caret) {
            throw std::invalid_argument("only powers of two may be written with ^: '" + text + "'");
        }
        const std::string exponent = text.substr(caret + 1);
        const auto k = std::stoull(exponent, &used);
        if (used != exponent.size() || k > 63) {
            throw std::invalid_argument("bad exponent in '" + text + "'");
        }
        value = index_t{1} << k;
    } else {
        value = std::stoull(text, &used);
        if (used != text.size()) {
            throw std::invalid_argument("bad size '" + text + "'");
        }
    }
    if (value == 0 || value > treefold::tree::max_size) {
        throw std::invalid_argument("N must be between 1 and 2^63: '" + text + "'");
    }
    return value;
}

// ~40 points evenly spaced in log N from p to 2^31 (rounded, duplicates dropped).
std::set<index_t> sweep_sizes(int p)
{
    constexpr int points = 40;
    const double lo = std::log2(static_cast<double>(p));
    const double hi = 31.0;
    std::set<index_t> sizes;
    for (int k = 0; k < points; ++k) {
        const double e = lo + (hi - lo) * k / (points - 1);
        sizes.insert(static_cast<index_t>(std::llround(std::exp2(e))));
    }
    return sizes;
}

void print_row(int p, index_t n, const std::string& dist, const char* exchange,
               const treefold::layout::call_messages& c, const std::optional<double>& bound)
{
    std::printf("%d,%" PRIu64 ",%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", p, n, dist.c_str(), exchange, c.reduce,
                c.unbuffered, c.all_reduce);
    if (bound) {
        std::printf("%.1f\n", *bound);
    } else {
        std::printf("na\n");
    }
}

} // namespace

int main(int argc, char** argv)
{
    int p = 256;
    std::vector<std::string> n_args;
    std::vector<std::string> dist_args;
    po::options_description desc("message_counts (no mpirun needed)");
    desc.add_options()("help", "this text")("p", po::value(&p)->default_value(p), "number of ranks p")(
        "n", po::value(&n_args)->composing(), "N (repeatable, or a comma list; 2^K allowed)")(
        "sweep", "N on a log grid of ~40 points from p to 2^31")(
        "distributions", po::value(&dist_args)->composing(),
        "comma list (default even-lower,even-upper,power-of-two,aligned:0.5)");
    po::variables_map vm;
    std::set<index_t> sizes;
    std::vector<treefold::layout::distribution> dists;
    try {
        po::store(po::parse_command_line(argc, argv, desc), vm);
        po::notify(vm);
        if (vm.count("help") != 0) {
            std::printf("%s", (std::ostringstream() << desc).str().c_str());
            return 0;
        }
        if (p < 1) {
            throw std::invalid_argument("--p must be at least 1");
        }
        for (const auto& arg : n_args) {
            for (const auto& item : treefold::perf::split_list(arg)) {
                sizes.insert(parse_size(item));
            }
        }
        if (vm.count("sweep") != 0) {
            sizes.merge(sweep_sizes(p));
        }
        if (sizes.empty()) {
            throw std::invalid_argument("give --n N or --sweep");
        }
        if (dist_args.empty()) {
            dist_args.emplace_back("even-lower,even-upper,power-of-two,aligned:0.5");
        }
        for (const auto& arg : dist_args) {
            for (const auto& item : treefold::perf::split_list(arg)) {
                dists.push_back(treefold::layout::distribution::parse(item));
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "message_counts: %s\n", e.what());
        return 2;
    }

    std::printf("p,n,distribution,exchange,messages_reduce,messages_unbuffered,messages_allreduce,bound\n");
    // The schedule exchange merges frontiers on every rank along one schedule for p: its count
    // depends on p alone, and it needs no broadcast.
    const std::uint64_t schedule_total = treefold::exchange::schedules::best::make(p).messages(p);
    const treefold::layout::call_messages schedule_counts{schedule_total, schedule_total, schedule_total};
    for (const index_t n : sizes) {
        const auto bound = treefold::layout::message_bound(n, p);
        for (const auto& d : dists) {
            const auto layout = treefold::layout::block_layout::from_counts(d.counts(n, p));
            print_row(p, n, d.name(), "direct", treefold::layout::direct_call_messages(layout), bound);
            print_row(p, n, d.name(), "tree", treefold::layout::tree_call_messages(layout), bound);
            print_row(p, n, d.name(), "one_sided", treefold::layout::one_sided_call_messages(layout), bound);
            print_row(p, n, d.name(), "schedule_best", schedule_counts, bound);
        }
    }
    return 0;
}
