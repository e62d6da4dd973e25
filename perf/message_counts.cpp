// Messages per reproducible all_reduce / reduce call for each exchange and distribution policy,
// computed from the plan alone: one process, no mpirun, any p.
//
//   message_counts [--p P] [--n N]... [--sweep] [--dense I,...] [--distributions LIST]
//                  [--exchanges LIST] [--per-rank]
//
// --per-rank prints each rank's element count instead (CSV p,n,distribution,rank,count): the
// spread of the thesis's Fig. 3.5.
//
// --dense I takes every N from p * 2^I - 512 to p * 2^I + 512: the spikes of the thesis's
// Fig. 2.3 (seed 000) sit at N = p * 2^I + 1 for even-lower.
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
#include "treefold/model/schedules.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/model/plan_messages.hpp"
#include "treefold/rma/one_sided.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
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
    if (value == 0 || value > treefold::index_tree::max_size) {
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

// Every N within 512 of p * 2^i.
std::set<index_t> dense_sizes(int p, unsigned i)
{
    constexpr index_t half_width = 512;
    if (i > 40) {
        throw std::invalid_argument("--dense exponent " + std::to_string(i) + " is above 40");
    }
    const index_t centre = static_cast<index_t>(p) << i;
    std::set<index_t> sizes;
    for (index_t n = centre > half_width ? centre - half_width : 1; n <= centre + half_width; ++n) {
        sizes.insert(n);
    }
    return sizes;
}

void print_row(int p, index_t n, const std::string& dist, const char* exchange,
               const treefold::model::call_messages& c, const std::optional<double>& bound)
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
    std::vector<std::string> dense_args;
    std::string exchanges_arg = "direct,tree,one_sided,schedule_best";
    po::options_description desc("message_counts (no mpirun needed)");
    desc.add_options()("help", "this text")("p", po::value(&p)->default_value(p), "number of ranks p")(
        "n", po::value(&n_args)->composing(), "N (repeatable, or a comma list; 2^K allowed)")(
        "sweep", "N on a log grid of ~40 points from p to 2^31")(
        "dense", po::value(&dense_args)->composing(), "exponents I (comma list): every N in p * 2^I +- 512")(
        "per-rank", "print p,n,distribution,rank,count rows instead of message counts")(
        "exchanges", po::value(&exchanges_arg)->default_value(exchanges_arg), "comma list of the rows to print")(
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
        for (const auto& arg : dense_args) {
            for (const auto i : treefold::perf::unsigned_list(arg, "--dense")) {
                sizes.merge(dense_sizes(p, static_cast<unsigned>(std::min<std::uint64_t>(i, 1000)))); // refused above 40
            }
        }
        for (const auto& e : treefold::perf::split_list(exchanges_arg)) {
            if (e != "direct" && e != "tree" && e != "one_sided" && e != "schedule_best") {
                throw std::invalid_argument("unknown exchange '" + e + "' (want direct, tree, one_sided, schedule_best)");
            }
        }
        if (sizes.empty()) {
            throw std::invalid_argument("give --n N, --sweep or --dense I");
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

    if (vm.count("per-rank") != 0) {
        std::printf("p,n,distribution,rank,count\n");
        for (const index_t n : sizes) {
            for (const auto& d : dists) {
                const auto counts = d.counts(n, p);
                for (std::size_t r = 0; r < counts.size(); ++r) {
                    std::printf("%d,%" PRIu64 ",%s,%zu,%" PRIu64 "\n", p, n, d.name().c_str(), r, counts[r]);
                }
            }
        }
        return 0;
    }
    const auto exchanges = treefold::perf::split_list(exchanges_arg);
    const auto wanted = [&](const char* e) { return std::find(exchanges.begin(), exchanges.end(), e) != exchanges.end(); };
    std::printf("p,n,distribution,exchange,messages_reduce,messages_unbuffered,messages_allreduce,bound\n");
    // The schedule exchange merges frontiers on every rank along one schedule for p: its count
    // depends on p alone, and it needs no broadcast.
    const std::uint64_t schedule_total = treefold::model::schedules::best::make(p).messages(p);
    const treefold::model::call_messages schedule_counts{schedule_total, schedule_total, schedule_total};
    for (const index_t n : sizes) {
        const auto bound = treefold::model::message_bound(n, p);
        for (const auto& d : dists) {
            const auto layout = treefold::layout::block_layout::from_counts(d.counts(n, p));
            if (wanted("direct")) {
                print_row(p, n, d.name(), "direct", treefold::model::direct_call_messages(layout), bound);
            }
            if (wanted("tree")) {
                print_row(p, n, d.name(), "tree", treefold::model::tree_call_messages(layout), bound);
            }
            if (wanted("one_sided")) {
                const auto queue = treefold::rma::one_sided_call_messages(layout);
                print_row(p, n, d.name(), "one_sided", {queue.exchange, queue.exchange, queue.all_reduce}, bound);
            }
            if (wanted("schedule_best")) {
                print_row(p, n, d.name(), "schedule_best", schedule_counts, bound);
            }
        }
    }
    return 0;
}
