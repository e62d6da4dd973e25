// `treefold simulate --p P [--n N] [--exchange E]... [--schedule TEXT]... [--model M ...]
// [--svg DIR] [--csv]`: the task-graph simulator (model/task_graph.hpp) on the reproducible
// exchanges' message patterns or on schedules, with makespan, messages, bytes, busy time and
// the critical path; SVG timelines written to a folder (no MPI).
#include "common.hpp"
#include "treefold/all_exchanges.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/model/task_graph.hpp"
#include "treefold/topology/schedule.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace po = boost::program_options;

namespace treefold::cli {

namespace {

/// The network model the options name, or a usage error.
std::unique_ptr<model::network> network_of(const std::string& name, const model::params& pipe, const model::loggp& lg,
                                           const model::size_params& sized)
{
    return usage_on([&]() -> std::unique_ptr<model::network> {
        if (name == "pipelining") {
            return std::make_unique<model::pipelining_network>(pipe);
        }
        if (name == "loggp") {
            return std::make_unique<model::loggp_network>(lg);
        }
        if (name == "size") {
            return std::make_unique<model::size_aware_network>(sized);
        }
        // A usage_error is no std::invalid_argument: usage_on lets it through.
        throw usage_error("--model must be pipelining, loggp or size, not '" + name + "'");
    });
}

/// A file name from a label: letters, digits, '-' and '_' kept, the rest '_'.
std::string file_stem(const std::string& label)
{
    std::string out = label;
    std::replace_if(out.begin(), out.end(), [](char c) { return !(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'); }, '_');
    return out;
}

} // namespace

int run_simulate(const std::vector<std::string>& args, int& /*argc*/, char**& /*argv*/)
{
    int p = 0;
    std::uint64_t n = 0;
    std::vector<std::string> exchanges;
    std::vector<std::string> schedules;
    std::string dist = "even-upper";
    std::string model_name = "pipelining";
    std::string receives = "free";
    model::params pipe;
    model::loggp lg;
    model::size_params sized;
    sized.eager_limit = 4096; // a typical shared-memory eager limit
    model::work_costs work;
    std::string svg_dir;
    int lanes = 64;
    bool csv = false;
    std::string exchange_help = "simulate this exchange (repeatable; 'all' for every one):";
    for (const auto name : scheduled_exchange_names()) { // every exchange that runs a schedule
        exchange_help += (exchange_help.back() == ':' ? " " : ", ") + std::string(name);
    }
    po::options_description desc("treefold simulate options");
    desc.add_options()
        ("p", po::value(&p)->required(), "number of ranks p (1..65536)")
        ("n", po::value(&n)->default_value(0), "number of values N (frontier sizes and local work; default p)")
        ("distribution", po::value(&dist), "layout of the N values (default even-upper, the reducer's)")
        ("exchange", po::value(&exchanges)->composing(), exchange_help.c_str())
        ("schedule", po::value(&schedules)->composing(), "simulate this allreduce schedule of scalars (text form; repeatable)")
        ("model", po::value(&model_name), "network model: pipelining (default), loggp, size")
        ("alpha-p", po::value(&pipe.alpha_p), ("pipelining/size: latency (us; default " + default_text(model::thesis_alpha_p) + ")").c_str())
        ("alpha-r", po::value(&pipe.alpha_r), ("pipelining/size: sender's cost per message (us; default " + default_text(model::thesis_alpha_r) + ")").c_str())
        ("receives", po::value(&receives), "pipelining: free (default) or conflicts (receives alpha_r apart)")
        ("L", po::value(&lg.L), "loggp: latency (us)")
        ("o", po::value(&lg.o), "loggp: send plus receive overhead (us)")
        ("G", po::value(&lg.G), "loggp: time per byte (us)")
        ("beta", po::value(&sized.beta), "size: time per byte (us)")
        ("eager-limit", po::value(&sized.eager_limit), "size: largest eager message (bytes; default 4096)")
        ("rendezvous-step", po::value(&sized.rendezvous_p), "size: extra latency of a rendezvous message (us)")
        ("per-call", po::value(&work.per_call), "fixed software cost of a call on every rank (us; default 0)")
        ("per-element", po::value(&work.per_element), "local kernel time per element (us; default 0)")
        ("per-value", po::value(&work.per_value), "time to combine one received value (us; default 0)")
        ("value-bytes", po::value(&work.value_bytes), "bytes per value (default 8)")
        ("svg", po::value(&svg_dir), "write one timeline per simulation into this folder")
        ("lanes", po::value(&lanes), "ranks drawn at most in a timeline (default 64)")
        ("csv", po::bool_switch(&csv), "print CSV rows (model,p,n,what,makespan,messages,bytes,path_messages,max_busy,skew)")
        ("help,h", "this help");
    if (help_requested(args)) {
        return print_help("simulate", desc);
    }
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
    if (p < 1 || p > 65536) {
        throw usage_error("--p must be between 1 and 65536");
    }
    for (const auto& [value, option] : {std::pair{pipe.alpha_p, "--alpha-p"}, {pipe.alpha_r, "--alpha-r"}, {lg.L, "--L"},
                                        {lg.o, "--o"}, {lg.G, "--G"}, {sized.beta, "--beta"},
                                        {sized.rendezvous_p, "--rendezvous-step"}, {work.per_call, "--per-call"},
                                        {work.per_element, "--per-element"},
                                        {work.per_value, "--per-value"}}) {
        require_cost(value, option);
    }
    if (receives != "free" && receives != "conflicts") {
        throw usage_error("--receives must be 'free' or 'conflicts'");
    }
    pipe.receives = receives == "free" ? model::receive_cost::free : model::receive_cost::conflicts;
    sized.base.alpha_p = pipe.alpha_p;
    sized.base.alpha_r = pipe.alpha_r;
    const auto net = network_of(model_name, pipe, lg, sized);
    if (exchanges.empty() && schedules.empty()) {
        throw usage_error("give at least one --exchange or --schedule");
    }
    if (std::find(exchanges.begin(), exchanges.end(), "all") != exchanges.end()) {
        const auto every = scheduled_exchange_names();
        exchanges.assign(every.begin(), every.end());
    }
    const std::uint64_t values = n == 0 ? static_cast<std::uint64_t>(p) : n;
    const auto l = usage_on([&] { return layout::block_layout::from_counts(parse_distribution(dist).counts(values, p)); });
    std::vector<std::pair<std::string, model::task_graph>> runs;
    for (const auto& e : exchanges) {
        usage_on([&] { runs.emplace_back(e, model::exchange_graph(schedules_of(e, l), work)); });
    }
    for (const auto& text : schedules) {
        usage_on([&] {
            const auto s = topology::schedule::parse(text);
            runs.emplace_back("schedule " + s.to_string(), model::schedule_graph(s, p, model::scalar_partials(work.value_bytes), work));
        });
    }
    if (!svg_dir.empty()) {
        std::filesystem::create_directories(svg_dir);
    }
    if (!csv) {
        std::printf("p = %d, N = %" PRIu64 ", %s, model %s\n", p, values, dist.c_str(), net->name().c_str());
        std::printf("%-28s %14s %10s %12s %14s %12s %10s\n", "simulated", "makespan (us)", "messages", "bytes",
                    "path messages", "max busy (us)", "skew (us)");
    }
    for (auto& [label, g] : runs) {
        const auto t = model::simulate_graph(g, *net);
        std::uint64_t path_messages = 0;
        for (const auto& s : t.critical_path) {
            path_messages += s.edge == model::bound_by::message ? 1 : 0;
        }
        double busy = 0;
        double first_done = t.makespan;
        for (const auto& r : t.ranks) {
            busy = std::max(busy, r.busy);
            first_done = std::min(first_done, r.finish);
        }
        const double skew = t.makespan - first_done; // spread of the ranks' finishing times
        if (csv) {
            std::printf("%s,%d,%" PRIu64 ",%s,%.6g,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6g,%.6g\n", net->name().c_str(), p,
                        values, label.c_str(), t.makespan, t.messages, t.bytes, path_messages, busy, skew);
        } else {
            std::printf("%-28s %14.3f %10" PRIu64 " %12" PRIu64 " %14" PRIu64 " %12.3f %10.3f\n", label.c_str(), t.makespan,
                        t.messages, t.bytes, path_messages, busy, skew);
        }
        if (!svg_dir.empty()) {
            const auto path = std::filesystem::path(svg_dir) /
                              (file_stem(label) + "_p" + std::to_string(p) + "_n" + std::to_string(values) + ".svg");
            std::ofstream out(path);
            model::write_svg(out, g, t,
                             {1000, 16, lanes, label + ", p = " + std::to_string(p) + ", N = " + std::to_string(values) +
                                                   ", " + net->name() + " model (us)"});
            if (!out) {
                throw std::runtime_error("cannot write " + path.string());
            }
        }
    }
    return 0;
}

} // namespace treefold::cli
