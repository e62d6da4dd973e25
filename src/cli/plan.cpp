// `treefold plan --n N --p P [--distribution D] [--t-send NS] [--t-op NS]`: per-layout
// figures of the direct exchange, computed from the plan alone (no MPI).
#include "common.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/model/message_count.hpp"

#include <boost/program_options.hpp>

#include <cinttypes>
#include <cstdio>
#include <optional>

namespace po = boost::program_options;

namespace treefold::cli {

namespace {

struct plan_options {
    std::uint64_t n = 0;
    int p = 0;
    std::optional<layout::distribution> dist;
    model::score_params params;
    bool help = false;
};

plan_options parse_plan(const std::vector<std::string>& args)
{
    plan_options o;
    std::string dist;
    po::options_description desc("treefold plan options");
    desc.add_options()
        ("n", po::value(&o.n)->required(), "number of values N")
        ("p", po::value(&o.p)->required(), "number of ranks p")
        ("distribution", po::value(&dist), "one policy (default: all four, aligned:0.5)")
        ("t-send", po::value(&o.params.t_send)->default_value(o.params.t_send), "ns per message")
        ("t-op", po::value(&o.params.t_op)->default_value(o.params.t_op), "ns per operator call")
        ("help,h", "this help");
    if (help_requested(args)) {
        o.help = print_help("plan", desc) == 0;
        return o;
    }
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
    if (!dist.empty()) {
        o.dist = parse_distribution(dist);
    }
    if (o.p < 1) {
        throw usage_error("--p must be at least 1");
    }
    if (o.n == 0 || o.n > index_tree::max_size) {
        throw usage_error("--n must be between 1 and 2^63");
    }
    require_cost(o.params.t_send, "--t-send");
    require_cost(o.params.t_op, "--t-op");
    return o;
}

} // namespace

int run_plan(const std::vector<std::string>& args, int& /*argc*/, char**& /*argv*/)
{
    const plan_options o = parse_plan(args);
    if (o.help) {
        return 0;
    }
    std::vector<layout::distribution> dists;
    if (o.dist) {
        dists.push_back(*o.dist);
    } else {
        for (const char* name : {"even-lower", "even-upper", "power-of-two", "aligned:0.5"}) {
            dists.push_back(layout::distribution::parse(name));
        }
    }
    std::printf("N = %" PRIu64 ", p = %d, t_send = %g ns, t_op = %g ns\n", o.n, o.p, o.params.t_send, o.params.t_op);
    std::printf("%-14s %14s %14s %14s %14s\n", "distribution", "messages", "max count", "min count", "score (ns)");
    for (const auto& d : dists) {
        const auto l = layout::block_layout::from_counts(d.counts(o.n, o.p));
        std::printf("%-14s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14.1f\n", d.name().c_str(),
                    model::direct_messages(l), l.max_count(), l.min_count(), model::score(l, o.params));
    }
    return 0;
}

} // namespace treefold::cli
