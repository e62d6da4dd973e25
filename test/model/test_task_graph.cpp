// The task-graph simulator (model/task_graph.hpp) without communication: simulate() as the
// schedule's graph, delayed messages, a binomial reduce and broadcast checked by hand, the
// plan's message counts for every simulated exchange, the critical path's length from the
// model's own costs, the rendezvous rule, and a well-formed SVG timeline.
#include <boost/test/unit_test.hpp>

#include "support/throws.hpp"

#include "treefold/all_exchanges.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/model/plan_messages.hpp"
#include "treefold/model/pipelining.hpp"
#include "treefold/model/task_graph.hpp"
#include "treefold/topology/schedule.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace model = treefold::model;
namespace topology = treefold::topology;
namespace layout = treefold::layout;
using treefold::index_tree::index_t;

namespace {

using treefold::testing::throws_with;

/// The size-aware model with a step of `step` above `eager_limit` in flight only.
model::size_params flight(double alpha_p, double alpha_r, double beta, std::uint64_t eager_limit, double step)
{
    model::size_params m;
    m.base.alpha_p = alpha_p;
    m.base.alpha_r = alpha_r;
    m.beta = beta;
    m.eager_limit = eager_limit;
    m.rendezvous_p = step;
    return m;
}

/// The critical path's length from the network's own costs: every task's run time (send and
/// receive overheads, compute durations) plus, on every edge, the message's latency or the
/// receive port's gap; also checks each edge's wait against that cost.
double path_length_from_costs(const model::task_graph& g, const model::timeline& t, const model::network& net)
{
    double total = 0;
    for (const auto& s : t.critical_path) {
        const model::task& k = g.tasks()[s.task];
        double run = k.duration;
        if (k.kind == model::task_kind::send) {
            run = net.send_overhead(k.bytes);
        } else if (k.kind == model::task_kind::receive) {
            run = net.receive_overhead(k.bytes);
        }
        double wait = 0;
        if (s.edge == model::bound_by::message) {
            wait = net.latency(k.bytes);
        } else if (s.edge == model::bound_by::port && k.kind == model::task_kind::receive) {
            wait = std::max(net.receive_gap(k.bytes), run) - run;
        }
        BOOST_CHECK_CLOSE(s.wait + 1.0, wait + 1.0, 1e-9);
        total += run + wait;
    }
    return total;
}

std::size_t count_of(const std::string& text, const std::string& needle)
{
    std::size_t n = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
        ++n;
    }
    return n;
}

/// Element nesting of an XML text: every start tag closed in order, self-closing tags
/// allowed, attribute values quoted; returns "" or what is wrong.
std::string xml_nesting_error(const std::string& text)
{
    std::vector<std::string> open;
    std::size_t at = 0;
    while ((at = text.find('<', at)) != std::string::npos) {
        const std::size_t end = text.find('>', at);
        if (end == std::string::npos) {
            return "unterminated tag";
        }
        const std::string tag = text.substr(at + 1, end - at - 1);
        at = end + 1;
        if (tag.empty() || tag[0] == '?') {
            continue;
        }
        if (count_of(tag, "\"") % 2 != 0) {
            return "unbalanced quotes in <" + tag + ">";
        }
        if (tag[0] == '/') {
            if (open.empty() || open.back() != tag.substr(1)) {
                return "unexpected </" + tag.substr(1) + ">";
            }
            open.pop_back();
        } else if (tag.back() != '/') {
            open.push_back(tag.substr(0, tag.find(' ')));
        }
    }
    return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

layout::block_layout counts(std::vector<index_t> c) { return layout::block_layout::from_counts(c); }

} // namespace

BOOST_AUTO_TEST_CASE(simulate_is_the_schedule_graph_with_receive_conflicts)
{
    // model::simulate runs schedule_graph on the pipelining network with receive conflicts,
    // whatever the parameters' receive model says.
    const model::params m{0.88, 0.38};
    const model::pipelining_network net({m.alpha_p, m.alpha_r, model::receive_cost::conflicts});
    int compared = 0;
    for (int p = 1; p <= 48; ++p) {
        std::vector<topology::schedule> all{topology::recursive_doubling(p), model::heuristic(p, m), model::best(p, m),
                                            model::thesis_heuristic(p, m, true), model::thesis_heuristic(p, m, false)};
        for (const auto& f : topology::factorisations(p, 20)) {
            all.push_back(f);
        }
        for (const auto& s : all) {
            auto g = model::schedule_graph(s, p);
            const auto t = model::simulate_graph(g, net);
            const auto sim = model::simulate(s, p, m);
            BOOST_CHECK_MESSAGE(t.makespan == sim.time,
                                s.to_string() << " over " << p << ": graph " << t.makespan << ", simulate " << sim.time);
            BOOST_CHECK_EQUAL(t.messages, sim.messages);
            BOOST_CHECK_EQUAL(t.messages, s.messages(p));
            ++compared;
        }
    }
    BOOST_TEST_MESSAGE(compared << " schedules compared");
    // With free receives (the thesis's model) a collapse of B = 3 costs α_p + α_r, not
    // α_p + (B−1)·α_r: 1.5 (collapse) + 1.5 (factor 2) + 2.0 (expand: two sends) = 5.0, the
    // modelled time; with conflicts the collapse's second receive ends α_r later.
    const model::params free{1.0, 0.5};
    const auto c6 = topology::schedule::parse("collapse(6,3) 2 expand");
    auto g = model::schedule_graph(c6, 6);
    BOOST_CHECK_CLOSE(model::simulate_graph(g, model::pipelining_network(free)).makespan, 5.0, 1e-9);
    BOOST_CHECK_CLOSE(model::modelled_time(c6, 6, free), 5.0, 1e-9);
    const model::params conflicting{1.0, 0.5, model::receive_cost::conflicts};
    BOOST_CHECK_CLOSE(model::simulate_graph(g, model::pipelining_network(conflicting)).makespan, 5.5, 1e-9);
}

BOOST_AUTO_TEST_CASE(a_delayed_message_arrives_later)
{
    // α_r = 0.5 on the sender's CPU, α_p = 1 in flight, plus the message's extra delay.
    model::task_graph g(2);
    const std::size_t first = g.send(0, 1, 8);
    g.send(0, 1, 8);
    g.receive(1, 0);
    g.receive(1, 0);
    g.add_delay(first, 2.0);
    g.add_delay(first, 0.25);
    const auto t = model::simulate_graph(g, model::pipelining_network(model::params{1.0, 0.5}));
    BOOST_CHECK_CLOSE(t.times[2].arrival, 3.75, 1e-12); // 0.5 + 1 + 2.25
    BOOST_CHECK_CLOSE(t.times[3].arrival, 2.0, 1e-12);  // 1.0 + 1
    BOOST_CHECK_CLOSE(t.makespan, 3.75, 1e-12);
    BOOST_CHECK(throws_with([&] { g.add_delay(2, 1.0); }, "not a send"));
    BOOST_CHECK(throws_with([&] { g.add_delay(9, 1.0); }, "not a send"));
    BOOST_CHECK(throws_with([&] { g.add_delay(first, -1.0); }, "finite and >= 0"));
}

BOOST_AUTO_TEST_CASE(binomial_reduce_and_broadcast_by_hand)
{
    // p = 4, α_p = 1, α_r = 0.5, free receives, no local work. Reduce: 1 -> 0 and 3 -> 2 end
    // their sends at 0.5 and arrive at 1.5; 2 -> 0 leaves at 2.0 and arrives at 3.0.
    // Broadcast from 0: to 2 (end 3.5, arrives 4.5), then to 1 (end 4.0, arrives 5.0);
    // 2 -> 3 ends at 5.0 and arrives at 6.0.
    const model::pipelining_network net(model::params{1.0, 0.5});
    const auto one_each = counts({1, 1, 1, 1}); // every subtree's frontier is one node
    auto g = model::exchange_graph(treefold::schedules_of("binomial", one_each));
    const auto t = model::simulate_graph(g, net);
    BOOST_CHECK_CLOSE(t.makespan, 6.0, 1e-12);
    BOOST_CHECK_EQUAL(t.messages, 6U); // p − 1 up, p − 1 down
    BOOST_CHECK_CLOSE(t.ranks[1].finish, 5.0, 1e-12);
    BOOST_CHECK_CLOSE(t.ranks[2].finish, 5.0, 1e-12);
    BOOST_CHECK_CLOSE(t.ranks[3].finish, 6.0, 1e-12);
    BOOST_CHECK_EQUAL(t.ranks[0].sent, 2U);
    BOOST_CHECK_EQUAL(t.ranks[0].received, 2U);
    BOOST_CHECK_CLOSE(t.ranks[0].busy, 1.0, 1e-12); // two sends of α_r
    BOOST_CHECK_CLOSE(t.ranks[0].idle, 5.0, 1e-12);
    // The critical path: 3 -> 2 -> 0 -> 2 -> 3, four messages of α_r + α_p each.
    int messages_on_path = 0;
    for (const auto& s : t.critical_path) {
        messages_on_path += s.edge == model::bound_by::message ? 1 : 0;
    }
    BOOST_CHECK_EQUAL(messages_on_path, 4);
    BOOST_CHECK_EQUAL(g.tasks()[t.critical_path.front().task].rank, 3);
    BOOST_CHECK_EQUAL(g.tasks()[t.critical_path.back().task].rank, 3);
    BOOST_CHECK_CLOSE(path_length_from_costs(g, t, net), t.makespan, 1e-9);
    // A fixed cost per call on every rank delays everything by that much.
    model::work_costs work;
    work.per_call = 2.0;
    auto g2 = model::exchange_graph(treefold::schedules_of("binomial", one_each), work);
    BOOST_CHECK_CLOSE(model::simulate_graph(g2, net).makespan, 8.0, 1e-12);
}

BOOST_AUTO_TEST_CASE(message_counts_equal_the_plan)
{
    const std::vector<layout::block_layout> layouts{
        counts({5}), counts({3, 4}), counts({10, 0, 7, 1, 0, 9}), counts({100, 100, 100, 100, 100, 100, 100}),
        counts(std::vector<index_t>(13, 37)), counts({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), counts({0, 0, 8, 0})};
    for (const auto& l : layouts) {
        const int p = l.ranks();
        for (const auto name : treefold::scheduled_exchange_names()) { // every exchange but native and automatic
            const auto ranks = treefold::schedules_of(name, l);
            auto g = model::exchange_graph(ranks, {0.5, 0.001, 0.002, 8});
            std::uint64_t expected = treefold::plan::count(ranks).messages + treefold::plan::broadcast_messages(ranks[0]);
            if (name == "direct") {
                BOOST_CHECK_EQUAL(expected, model::direct_call_messages(l).all_reduce);
            } else if (name == "schedule_rd") {
                BOOST_CHECK_EQUAL(expected, topology::recursive_doubling(p).messages(p));
            } else if (name == "binomial" || name == "mary8") {
                BOOST_CHECK_EQUAL(expected, model::tree_call_messages(l).all_reduce);
            }
            BOOST_CHECK_MESSAGE(g.messages() == expected,
                                name << " over " << p << " ranks: " << g.messages() << " messages, plan " << expected);
            const auto t = model::simulate_graph(g, model::pipelining_network(model::params{}));
            BOOST_CHECK_EQUAL(t.messages, expected);
            std::uint64_t sent = 0;
            std::uint64_t received = 0;
            for (const auto& r : t.ranks) {
                sent += r.sent;
                received += r.received;
            }
            BOOST_CHECK_EQUAL(sent, expected);
            BOOST_CHECK_EQUAL(received, expected);
        }
    }
    // Frontier sizes: rank 0 of four ranks of 3 over N = 12 holds [0, 3) = nodes {0..1}, {2}.
    const auto bytes = model::frontier_partials(counts({3, 3, 3, 3}), 8);
    BOOST_CHECK_EQUAL(bytes(0, 1), 16U);
    BOOST_CHECK_EQUAL(bytes(0, 4), 8U); // the whole range is the root
    BOOST_CHECK(throws_with([&] { (void)treefold::schedules_of("native", counts({1, 1})); }, "those that do: direct"));
    BOOST_CHECK(throws_with([&] { (void)model::exchange_graph({}, {}); }, "every rank's schedule"));
}

BOOST_AUTO_TEST_CASE(critical_path_length_is_the_makespan)
{
    const auto l = counts({1000, 700, 0, 1300, 999, 1001, 64});
    model::loggp lg;
    lg.L = 1.5;
    lg.o = 0.4;
    lg.G = 0.001;
    const model::loggp_network loggp(lg);
    const model::size_aware_network sized(flight(0.9, 0.4, 0.002, 1 << 20, 0));
    const model::pipelining_network conflicts(model::params{0.88, 0.38, model::receive_cost::conflicts});
    const std::vector<const model::network*> nets{&loggp, &sized, &conflicts};
    for (const model::network* net : nets) {
        for (const auto name : treefold::scheduled_exchange_names()) {
            auto g = model::exchange_graph(treefold::schedules_of(name, l), {0.2, 0.003, 0.004, 8});
            const auto t = model::simulate_graph(g, *net);
            BOOST_CHECK_GT(t.makespan, 0.0);
            BOOST_CHECK_CLOSE(path_length_from_costs(g, t, *net), t.makespan, 1e-9);
            double latest = 0;
            for (const auto& r : t.ranks) {
                latest = std::max(latest, r.finish);
                BOOST_CHECK_CLOSE(r.busy + r.idle + 1.0, std::max(t.makespan, r.busy) + 1.0, 1e-9);
            }
            BOOST_CHECK_EQUAL(latest, t.makespan);
        }
    }
}

BOOST_AUTO_TEST_CASE(rendezvous_waits_for_the_receive)
{
    // Rank 1 computes for 10 before it posts its receive; a message over the eager limit
    // leaves only then, one under it is already there.
    const model::size_aware_network net(flight(1.0, 0.5, 0.01, 100, 2.0));
    for (const std::uint64_t bytes : {std::uint64_t{100}, std::uint64_t{1000}}) {
        model::task_graph g(2);
        g.send(0, 1, bytes);
        const auto c = g.compute(1, 10.0);
        g.receive(1, 0, {c});
        const auto t = model::simulate_graph(g, net);
        const double expected = bytes > 100 ? 10.0 + 1.0 + 1000 * 0.01 + 2.0 : 10.0;
        BOOST_CHECK_CLOSE(t.makespan, expected, 1e-9);
    }
}

BOOST_AUTO_TEST_CASE(size_aware_network_reads_the_size_model_in_flight)
{
    // One parameter set (model::size_params): the per-message terms on the sender, the
    // per-byte terms in flight; above the eager limit rendezvous_r adds to the sender,
    // rendezvous_p + rendezvous_beta * n to the flight.
    model::size_params m = flight(1.0, 0.5, 0.01, 100, 2.0);
    m.rendezvous_r = 0.25;
    m.rendezvous_beta = -0.004;
    const model::size_aware_network net(m);
    BOOST_CHECK_EQUAL(net.send_overhead(100), 0.5);
    BOOST_CHECK_EQUAL(net.send_overhead(1000), 0.75);
    BOOST_CHECK_CLOSE(net.latency(100), 1.0 + 100 * 0.01, 1e-12);
    BOOST_CHECK_CLOSE(net.latency(1000), 1.0 + 1000 * 0.01 + 2.0 - 1000 * 0.004, 1e-12);
    // The analytic reading of the same parameters charges the bytes to the sender instead.
    BOOST_CHECK_CLOSE(m.at(100).alpha_r, 0.5 + 100 * 0.01, 1e-12);
    BOOST_CHECK_CLOSE(m.at(100).alpha_p, 1.0, 1e-12);
    // Below zero per byte above the limit is refused by the size model's own check.
    m.rendezvous_beta = -0.02;
    BOOST_CHECK(throws_with([&] { model::size_aware_network bad(m); }, "rendezvous_beta"));
}

BOOST_AUTO_TEST_CASE(loggp_message_costs_o_plus_l_plus_bytes_times_g)
{
    model::loggp lg;
    lg.L = 2.0;
    lg.o = 1.0;
    lg.G = 0.01;
    model::task_graph g(2);
    g.send(0, 1, 1000);
    g.receive(1, 0);
    const auto t = model::simulate_graph(g, model::loggp_network(lg));
    BOOST_CHECK_CLOSE(t.makespan, 1.0 + 2.0 + 1000 * 0.01, 1e-9);
    BOOST_CHECK_CLOSE(t.ranks[0].busy, 0.5, 1e-9); // half of o on each side
    BOOST_CHECK_CLOSE(t.ranks[1].busy, 0.5, 1e-9);
    BOOST_CHECK_EQUAL(t.bytes, 1000U);
    BOOST_CHECK(throws_with([] { model::loggp bad; bad.G = -1; model::loggp_network n(bad); }, "LogGP"));
}

BOOST_AUTO_TEST_CASE(invalid_graphs_are_named)
{
    model::task_graph g(3);
    BOOST_CHECK(throws_with([&] { g.send(1, 1, 8); }, "rank 1 cannot send to itself"));
    BOOST_CHECK(throws_with([&] { g.receive(2, 2); }, "rank 2 cannot receive from itself"));
    BOOST_CHECK(throws_with([&] { g.send(0, 3, 8); }, "send to rank 3 is outside 0..2"));
    BOOST_CHECK(throws_with([&] { g.receive(5, 0); }, "rank 5 is outside 0..2"));
    BOOST_CHECK(throws_with([&] { g.compute(0, -1.0); }, "duration"));
    BOOST_CHECK(throws_with([&] { g.compute(0, 1.0, {7}); }, "task 7 does not exist"));
    g.send(0, 2, 8);
    g.send(0, 2, 8);
    g.receive(2, 0);
    BOOST_CHECK(throws_with([&] { g.matched(); }, "rank 0 sends 2 messages to rank 2, which receives 1"));
    BOOST_CHECK(throws_with([] { model::task_graph bad(0); }, "at least one rank"));
    // Each rank receives before it sends: a deadlock, which the simulation reports as a cycle.
    model::task_graph dead(2);
    dead.send(0, 1, 8, {dead.receive(0, 1)});
    dead.send(1, 0, 8, {dead.receive(1, 0)});
    const model::pipelining_network free_net(model::params{1.0, 0.5});
    BOOST_CHECK_EXCEPTION(model::simulate_graph(dead, free_net), std::logic_error, [](const std::logic_error& e) {
        return std::string(e.what()).find("cycle (4 tasks never ran)") != std::string::npos;
    });
    // A timeline drawn with another graph is refused.
    std::ostringstream svg;
    BOOST_CHECK(throws_with([&] { model::write_svg(svg, dead, model::timeline{}); }, "timeline of this task graph"));
    BOOST_CHECK(throws_with([] { model::size_aware_network bad(flight(1, 0, 0, 1, 0)); }, "alpha_r"));
}

BOOST_AUTO_TEST_CASE(svg_timeline_is_well_formed)
{
    const auto l = counts({50, 50, 50, 50, 50});
    auto g = model::exchange_graph(treefold::schedules_of("fibonacci", l), {0, 0.01, 0.01, 8});
    const auto t = model::simulate_graph(g, model::pipelining_network(model::params{}));
    std::ostringstream out;
    model::write_svg(out, g, t, {800, 16, 64, "fibonacci <p = 5> & N = 250"});
    const std::string svg = out.str();
    BOOST_CHECK_EQUAL(xml_nesting_error(svg), "");
    BOOST_CHECK_EQUAL(svg.rfind("<?xml", 0), 0U);
    BOOST_CHECK_EQUAL(count_of(svg, "<rect "), g.tasks().size());
    BOOST_CHECK_EQUAL(count_of(svg, "<line "), g.messages() + 1); // one per message and the axis
    BOOST_CHECK_EQUAL(count_of(svg, "stroke=\"red\" stroke-width=\"1.5\""), t.critical_path.size());
    BOOST_CHECK(svg.find("&lt;p = 5&gt; &amp; N = 250") != std::string::npos);
    // Lanes beyond max_ranks are left out, and so are their tasks and messages.
    std::ostringstream two;
    model::write_svg(two, g, t, {800, 16, 2, ""});
    BOOST_CHECK_EQUAL(xml_nesting_error(two.str()), "");
    BOOST_CHECK_LT(count_of(two.str(), "<rect "), g.tasks().size());
}
