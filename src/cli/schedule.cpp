// `treefold schedule --p P [--alpha-p X --alpha-r Y [--beta B] | --constants FILE]
// [--bytes N] [--receives free|conflicts] [--schedule TEXT]... [--noise MEAN --seed S]`:
// recursive doubling, treefold's heuristic, the thesis's heuristic (sorted and unsorted), the
// best schedule and the best in the thesis's space for p ranks, with modelled and simulated
// times, message counts and efficiency (no MPI). With --bytes, every message carries N bytes
// and the model's α_p, α_r are the size-aware model's at N (model/size_model.hpp).
// `treefold schedule --exchange E --p P [--n N] [--distribution D] [--rank R]` prints the
// schedules an exchange's ranks run (plan/schedule.hpp), their totals and their check.
#include "commands.hpp"
#include "common.hpp"
#include "treefold/all_exchanges.hpp"
#include "treefold/plan/schedule.hpp"
#include "treefold/topology/schedule.hpp"
#include "treefold/model/pipelining.hpp"
#include "treefold/model/size_model.hpp"
#include "treefold/model/task_graph.hpp"

#include <boost/program_options.hpp>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace po = boost::program_options;

namespace treefold::cli {

namespace {

/// `--exchange`: every rank's schedule (or one rank's), the totals, and plan::verify's verdict.
int print_exchange_schedules(const std::string& exchange, int p, std::uint64_t n, const std::string& dist,
                             int only_rank)
{
    if (only_rank >= p) {
        throw usage_error("--rank must be below --p");
    }
    const std::vector<plan::rank_schedule> ranks = usage_on(
        [&] { return schedules_of(exchange, layout::block_layout::from_counts(parse_distribution(dist).counts(n, p))); });
    for (const auto& s : ranks) {
        if (only_rank < 0 || s.rank == only_rank) {
            std::fputs(s.to_string().c_str(), stdout);
        }
    }
    const plan::totals t = plan::count(ranks);
    const plan::verdict v = plan::verify(ranks);
    std::printf("total: %" PRIu64 " messages, %" PRIu64 " values; result broadcast: %" PRIu64 " messages\n", t.messages,
                t.values, plan::broadcast_messages(ranks.front()));
    std::printf("check: %s\n", v.ok ? "every maximal node once, merged in index order, every message paired"
                                      : v.reason.c_str());
    return v.ok ? 0 : 1;
}

} // namespace

int run_schedule(const std::vector<std::string>& args, int& /*argc*/, char**& /*argv*/)
{
    int p = 0;
    model::size_params sized;
    model::params& m = sized.base;
    std::uint64_t bytes = 8;
    std::string constants;
    std::vector<std::string> extra;
    model::noise noise;
    std::string receives = "free";
    std::string exchange;
    std::uint64_t n = 0;
    std::string dist = "even-upper";
    int only_rank = -1;
    po::options_description desc("treefold schedule options");
    desc.add_options()
        ("p", po::value(&p)->required(), "number of ranks p (1..1048576)")
        ("exchange", po::value(&exchange), "print every rank's schedule of this exchange (plan/schedule.hpp) "
                                            "and check them (with --n; no model)")
        ("n", po::value(&n), "--exchange: number of values N (default p)")
        ("distribution", po::value(&dist), "--exchange: layout of the N values (default even-upper)")
        ("rank", po::value(&only_rank), "--exchange: print this rank's schedule only")
        ("alpha-p", po::value(&m.alpha_p), ("pipeline latency of a multicast (us; default " + default_text(model::thesis_alpha_p) + ")").c_str())
        ("alpha-r", po::value(&m.alpha_r), ("cost per message of a multicast (us; default " + default_text(model::thesis_alpha_r) + ")").c_str())
        ("beta", po::value(&sized.beta), "cost per byte of a message (us; default 0)")
        ("bytes", po::value(&bytes), "bytes per message (default 8): the model's alpha_p, alpha_r at this size")
        ("constants", po::value(&constants), "read alpha_p and alpha_r (and the size terms of "
                                                 "schedule_fit --sizes) from this file (- for standard input)")
        ("receives", po::value(&receives), "model: 'free' (the thesis; a collapse costs alpha_p + alpha_r, default) or "
                                           "'conflicts' (one alpha_r per message received)")
        ("schedule", po::value(&extra)->composing(), "also evaluate this schedule (text form; repeatable)")
        ("noise", po::value(&noise.mean)->default_value(0.0), "simulator: mean extra delay per message (us)")
        ("seed", po::value(&noise.seed)->default_value(1), "simulator: random seed")
        ("help,h", "this help");
    if (help_requested(args)) {
        return print_help("schedule", desc);
    }
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
    if (p < 1 || p > (1 << 20)) {
        throw usage_error("--p must be between 1 and 1048576");
    }
    if (!exchange.empty()) {
        return print_exchange_schedules(exchange, p, vm.count("n") != 0 ? n : static_cast<std::uint64_t>(p), dist,
                                        only_rank);
    }
    if (!constants.empty()) {
        if (vm.count("alpha-p") != 0 || vm.count("alpha-r") != 0 || vm.count("beta") != 0) {
            throw usage_error("give either --constants or --alpha-p/--alpha-r/--beta, not both");
        }
        // A missing or malformed file is bad input.
        sized = usage_on<std::exception>([&] {
            return constants == "-" ? model::read_size_constants(std::cin, "standard input")
                                    : model::read_size_constants(constants);
        });
    }
    require_cost(m.alpha_p, "--alpha-p");
    require_cost(m.alpha_r, "--alpha-r");
    require_cost(sized.beta, "--beta");
    usage_on([&] { sized.check(); });
    require_cost(noise.mean, "--noise");
    if (receives != "free" && receives != "conflicts") {
        throw usage_error("--receives must be 'free' or 'conflicts'");
    }
    m.receives = receives == "free" ? model::receive_cost::free : model::receive_cost::conflicts;
    if (bytes < 1 || bytes > (std::uint64_t{1} << 40)) {
        throw usage_error("--bytes must be between 1 and 2^40");
    }
    const bool size_aware = sized.sized() || vm.count("bytes") != 0;
    if (size_aware) {
        std::printf("size model: alpha_p = %g us, alpha_r = %g us, beta = %g us/B", m.alpha_p, m.alpha_r, sized.beta);
        if (sized.eager_limit != std::numeric_limits<std::uint64_t>::max()) {
            std::printf(", above %" PRIu64 " B %+g us, %+g us per message, %+g us/B", sized.eager_limit,
                        sized.rendezvous_p, sized.rendezvous_r, sized.rendezvous_beta);
        }
        std::printf("; messages of %" PRIu64 " B\n", bytes);
        sized.base = sized.at(bytes); // the pipelining model at this size
    }
    std::vector<std::pair<std::string, topology::schedule>> rows{
        {"recursive doubling", topology::recursive_doubling(p)},
        {"heuristic", model::heuristic(p, m)},
        {"thesis sorted", model::thesis_heuristic(p, m, true)},
        {"thesis unsorted", model::thesis_heuristic(p, m, false)},
        {"best", model::best(p, m)},
        {"best thesis space", model::best(p, m, model::search_space::thesis())},
    };
    for (const auto& text : extra) {
        usage_on([&] {
            topology::schedule s = topology::schedule::parse(text);
            s.check(p);
            rows.emplace_back("given", std::move(s));
        });
    }
    const double c = m.ratio();
    std::printf("p = %d, alpha_p = %g us, alpha_r = %g us (alpha_p/alpha_r = %g)\n", p, m.alpha_p, m.alpha_r, c);
    std::printf("b_opt = %.4f, b_upper = %.4f, receives %s%s\n", model::b_opt(c), c > 0 ? model::b_upper(c) : 0.0,
                receives.c_str(), noise.mean > 0 ? " (simulated with noise)" : "");
    std::printf("%-20s %-40s %6s %10s %12s %12s %10s\n", "schedule", "stages", "rounds", "messages", "model (us)",
                "simulated (us)", "efficiency");
    const double best_time = model::modelled_time(rows[4].second, p, m);
    for (const auto& [name, s] : rows) {
        const auto sim = model::simulate(s, p, m, noise);
        const double t = model::modelled_time(s, p, m);
        std::printf("%-20s %-40s %6d %10" PRIu64 " %12.3f %12.3f %9.1f%%\n", name.c_str(), s.to_string().c_str(),
                    s.rounds(), s.messages(p), t, sim.time, t > 0 ? 100.0 * best_time / t : 100.0);
    }
    return 0;
}

} // namespace treefold::cli
