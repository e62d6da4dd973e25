// Task-graph simulator (see treefold/model/task_graph.hpp).
#include "treefold/model/task_graph.hpp"

#include "treefold/layout/detail/routes.hpp"
#include "treefold/index_tree/node.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <ostream>
#include <queue>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace treefold::model {

namespace {

void require_rank(int rank, int ranks, const char* what)
{
    if (rank < 0 || rank >= ranks) {
        throw std::invalid_argument("treefold: task graph " + std::string(what) + " rank " + std::to_string(rank) +
                                    " is outside 0.." + std::to_string(ranks - 1));
    }
}

bool finite_nonnegative(double x) { return std::isfinite(x) && x >= 0; }

/// A send (on `rank`, to `peer`) or a receive (on `rank`, from `peer`), both ranks checked.
task message_task(task_kind kind, int rank, int peer, int ranks, std::uint64_t bytes, std::vector<std::size_t> after)
{
    const bool sends = kind == task_kind::send;
    require_rank(rank, ranks, sends ? "send from" : "receive on");
    require_rank(peer, ranks, sends ? "send to" : "receive from");
    if (rank == peer) {
        throw std::invalid_argument("treefold: rank " + std::to_string(rank) +
                                    (sends ? " cannot send to itself" : " cannot receive from itself") +
                                    " in a task graph");
    }
    task t;
    t.kind = kind;
    t.rank = rank;
    t.peer = peer;
    t.bytes = bytes;
    t.after = std::move(after);
    return t;
}

} // namespace

task_graph::task_graph(int ranks) : ranks_(ranks)
{
    if (ranks < 1) {
        throw std::invalid_argument("treefold: a task graph needs at least one rank, not " + std::to_string(ranks));
    }
}

std::size_t task_graph::add(task t)
{
    for (const std::size_t a : t.after) {
        if (a >= tasks_.size()) {
            throw std::invalid_argument("treefold: a task may only come after tasks added before it (task " +
                                        std::to_string(a) + " does not exist yet)");
        }
    }
    matched_ = false;
    tasks_.push_back(std::move(t));
    return tasks_.size() - 1;
}

std::size_t task_graph::compute(int rank, double duration, std::vector<std::size_t> after)
{
    require_rank(rank, ranks_, "compute");
    if (!finite_nonnegative(duration)) {
        throw std::invalid_argument("treefold: a compute task's duration must be finite and >= 0");
    }
    task t;
    t.rank = rank;
    t.duration = duration;
    t.after = std::move(after);
    return add(std::move(t));
}

std::size_t task_graph::send(int from, int to, std::uint64_t bytes, std::vector<std::size_t> after)
{
    return add(message_task(task_kind::send, from, to, ranks_, bytes, std::move(after)));
}

std::size_t task_graph::receive(int to, int from, std::vector<std::size_t> after)
{
    return add(message_task(task_kind::receive, to, from, ranks_, 0, std::move(after)));
}

void task_graph::add_delay(std::size_t send, double extra)
{
    if (send >= tasks_.size() || tasks_[send].kind != task_kind::send) {
        throw std::invalid_argument("treefold: task " + std::to_string(send) + " is not a send: only a message can be delayed");
    }
    if (!finite_nonnegative(extra)) {
        throw std::invalid_argument("treefold: a message's extra delay must be finite and >= 0");
    }
    tasks_[send].delay += extra;
}

void task_graph::matched()
{
    if (matched_) {
        return;
    }
    // Per (sender, receiver): the sends and the receives in the order they were added.
    std::map<std::pair<int, int>, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> pairs;
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
        const task& t = tasks_[i];
        if (t.kind == task_kind::send) {
            pairs[{t.rank, t.peer}].first.push_back(i);
        } else if (t.kind == task_kind::receive) {
            pairs[{t.peer, t.rank}].second.push_back(i);
        }
    }
    for (const auto& [pair, lists] : pairs) {
        const auto& [sends, receives] = lists;
        if (sends.size() != receives.size()) {
            throw std::invalid_argument("treefold: rank " + std::to_string(pair.first) + " sends " +
                                        std::to_string(sends.size()) + " messages to rank " + std::to_string(pair.second) +
                                        ", which receives " + std::to_string(receives.size()));
        }
        for (std::size_t k = 0; k < sends.size(); ++k) {
            tasks_[sends[k]].match = receives[k];
            tasks_[receives[k]].match = sends[k];
            tasks_[receives[k]].bytes = tasks_[sends[k]].bytes;
        }
    }
    matched_ = true;
}

std::uint64_t task_graph::messages() const
{
    return static_cast<std::uint64_t>(
        std::count_if(tasks_.begin(), tasks_.end(), [](const task& t) { return t.kind == task_kind::send; }));
}

pipelining_network::pipelining_network(const params& m) : m_(m) { m_.check(); }

loggp_network::loggp_network(const loggp& m) : m_(m)
{
    if (!finite_nonnegative(m.L) || !finite_nonnegative(m.o) || !finite_nonnegative(m.G)) {
        throw std::invalid_argument("treefold: LogGP L, o and G must be finite and >= 0");
    }
}

size_aware_network::size_aware_network(const size_params& m) : m_(m) { m_.check(); }

timeline simulate_graph(task_graph& g, const network& net)
{
    g.matched();
    const auto& tasks = g.tasks();
    const std::size_t n = tasks.size();
    const auto p = static_cast<std::size_t>(g.ranks());
    timeline out;
    out.times.resize(n);
    out.ranks.resize(p);

    // Readiness: a task waits for its predecessors; a receive also for its send.
    std::vector<std::size_t> waiting(n, 0);
    std::vector<std::vector<std::size_t>> next(n);
    for (std::size_t i = 0; i < n; ++i) {
        for (const std::size_t a : tasks[i].after) {
            ++waiting[i];
            next[a].push_back(i);
        }
        if (tasks[i].kind == task_kind::receive) {
            ++waiting[i];
            next[tasks[i].match].push_back(i);
        }
    }
    using entry = std::pair<double, std::size_t>; // (ready time, task): earliest first, then added first
    std::priority_queue<entry, std::vector<entry>, std::greater<>> ready;
    // A ready task's time and what bound it there (its port comes later).
    auto make_ready = [&](std::size_t i) {
        const task& t = tasks[i];
        task_time& tt = out.times[i];
        double post = 0;
        for (const std::size_t a : t.after) {
            if (tt.bound == bound_by::nothing || out.times[a].end > post) {
                post = out.times[a].end;
                tt.bound = bound_by::dependency;
                tt.by = a;
            }
        }
        double at = post;
        if (t.kind == task_kind::receive) {
            const double sent = out.times[t.match].end;
            tt.arrival = (net.rendezvous(t.bytes) ? std::max(sent, post) : sent) + (net.latency(t.bytes) + tasks[t.match].delay);
            if (tt.arrival > post || tt.bound == bound_by::nothing) {
                tt.bound = bound_by::message;
                tt.by = t.match;
            }
            at = std::max(post, tt.arrival);
        }
        ready.push({at, i});
    };
    for (std::size_t i = 0; i < n; ++i) {
        if (waiting[i] == 0) {
            make_ready(i);
        }
    }
    std::vector<double> cpu_free(p, 0.0);
    std::vector<std::size_t> cpu_last(p, no_task);
    std::vector<double> recv_end(p, 0.0);
    std::vector<std::size_t> recv_last(p, no_task);
    std::size_t done = 0;
    while (!ready.empty()) {
        const auto [at, i] = ready.top();
        ready.pop();
        const task& t = tasks[i];
        task_time& tt = out.times[i];
        const auto r = static_cast<std::size_t>(t.rank);
        if (t.kind == task_kind::receive) {
            const double ov = net.receive_overhead(t.bytes);
            const double earliest = recv_last[r] == no_task ? 0.0 : recv_end[r] + std::max(net.receive_gap(t.bytes), ov);
            tt.end = std::max(at + ov, earliest);
            tt.start = tt.end - ov;
            if (recv_last[r] != no_task && earliest > at + ov) {
                tt.bound = bound_by::port;
                tt.by = recv_last[r];
            }
            recv_end[r] = tt.end;
            recv_last[r] = i;
        } else {
            const double run = t.kind == task_kind::send ? net.send_overhead(t.bytes) : t.duration;
            tt.start = std::max(at, cpu_free[r]);
            if (cpu_last[r] != no_task && cpu_free[r] > at) {
                tt.bound = bound_by::port;
                tt.by = cpu_last[r];
            }
            tt.end = tt.start + run;
            cpu_free[r] = tt.end;
            cpu_last[r] = i;
        }
        ++done;
        for (const std::size_t j : next[i]) {
            if (--waiting[j] == 0) {
                make_ready(j);
            }
        }
    }
    if (done != n) {
        throw std::logic_error("treefold: the task graph has a cycle (" + std::to_string(n - done) + " tasks never ran)");
    }

    std::size_t last = no_task;
    for (std::size_t i = 0; i < n; ++i) {
        const task& t = tasks[i];
        const task_time& tt = out.times[i];
        rank_stats& rs = out.ranks[static_cast<std::size_t>(t.rank)];
        rs.busy += tt.end - tt.start;
        rs.finish = std::max(rs.finish, tt.end);
        if (t.kind == task_kind::send) {
            ++rs.sent;
            rs.bytes_sent += t.bytes;
            ++out.messages;
            out.bytes += t.bytes;
        } else if (t.kind == task_kind::receive) {
            ++rs.received;
            rs.bytes_received += t.bytes;
        }
        if (last == no_task || tt.end > out.times[last].end) {
            last = i;
        }
    }
    out.makespan = last == no_task ? 0.0 : out.times[last].end;
    for (rank_stats& rs : out.ranks) {
        rs.idle = std::max(0.0, out.makespan - rs.busy);
    }
    // Back from the task that ends last along what bound each start.
    std::vector<path_step> path;
    for (std::size_t i = last; i != no_task;) {
        const task_time& tt = out.times[i];
        path_step s{i, tt.bound, 0.0, tt.end - tt.start};
        const std::size_t before = tt.bound == bound_by::nothing ? no_task : tt.by;
        s.wait = tt.start - (before == no_task ? 0.0 : out.times[before].end);
        path.push_back(s);
        i = before;
    }
    out.critical_path.assign(path.rbegin(), path.rend());
    return out;
}

partial_bytes scalar_partials(std::uint64_t value_bytes)
{
    return [value_bytes](int, int) { return value_bytes; };
}

partial_bytes frontier_partials(const layout::block_layout& layout, std::uint64_t value_bytes)
{
    return [starts = layout::position_starts(layout), n = layout.size(), value_bytes](int lo, int hi) {
        const auto s = starts[static_cast<std::size_t>(lo)];
        const auto e = starts[static_cast<std::size_t>(hi)];
        return static_cast<std::uint64_t>(index_tree::maximal_node_count(s, e, n)) * value_bytes;
    };
}

task_graph schedule_graph(const topology::schedule& s, int p, const partial_bytes& bytes, const work_costs& work,
                          const std::function<double(int)>& local)
{
    s.check(p);
    task_graph g(p);
    const double vb = static_cast<double>(std::max<std::uint64_t>(work.value_bytes, 1));
    for (int q = 0; q < p; ++q) {
        std::size_t prev = local || work.per_call > 0 ? g.compute(q, work.per_call + (local ? local(q) : 0.0)) : no_task;
        for (const topology::round_plan& rp : topology::rounds_of(s, p, q)) {
            const std::vector<std::size_t> start = prev == no_task ? std::vector<std::size_t>{} : std::vector<std::size_t>{prev};
            std::vector<std::size_t> round;
            for (const int to : rp.to) {
                round.push_back(g.send(q, to, bytes(rp.lo, rp.hi), start));
            }
            double values = 0;
            for (const auto& src : rp.from) {
                round.push_back(g.receive(q, src.position, start));
                values += static_cast<double>(bytes(src.lo, src.hi)) / vb;
            }
            if (prev != no_task) {
                round.push_back(prev);
            }
            prev = g.compute(q, work.per_value * values, std::move(round));
        }
    }
    return g;
}

simulation simulate(const topology::schedule& s, int p, const params& m, const noise& n)
{
    m.check();
    task_graph g = schedule_graph(s, p);
    if (!(std::isfinite(n.mean) && n.mean >= 0)) {
        throw std::invalid_argument("treefold: simulator noise mean must be finite and >= 0");
    }
    if (n.mean > 0) {
        // One draw per message: by round, then sender, then issue order (a rank's sends are in
        // the graph in rounds_of's order).
        std::vector<std::vector<std::size_t>> sends(static_cast<std::size_t>(p));
        for (std::size_t i = 0; i < g.tasks().size(); ++i) {
            if (g.tasks()[i].kind == task_kind::send) {
                sends[static_cast<std::size_t>(g.tasks()[i].rank)].push_back(i);
            }
        }
        std::vector<std::vector<std::size_t>> rounds(static_cast<std::size_t>(s.rounds()));
        for (int q = 0; q < p; ++q) {
            std::size_t k = 0;
            for (const topology::round_plan& rp : topology::rounds_of(s, p, q)) {
                for (std::size_t t = 0; t < rp.to.size(); ++t) {
                    rounds[static_cast<std::size_t>(rp.round)].push_back(sends[static_cast<std::size_t>(q)][k++]);
                }
            }
        }
        std::mt19937_64 rng(n.seed);
        for (const auto& round : rounds) {
            for (const std::size_t i : round) {
                g.add_delay(i, std::exponential_distribution<double>(1.0 / n.mean)(rng));
            }
        }
    }
    const timeline t = simulate_graph(g, pipelining_network({m.alpha_p, m.alpha_r, receive_cost::conflicts}));
    return {t.makespan, t.messages};
}

void add_broadcast(task_graph& g, int root, std::uint64_t bytes, const std::vector<std::size_t>& after)
{
    const int p = g.ranks();
    require_rank(root, p, "broadcast root");
    if (after.size() != static_cast<std::size_t>(p)) {
        throw std::invalid_argument("treefold: add_broadcast needs one task (or no_task) per rank");
    }
    for (int me = 0; me < p; ++me) {
        const std::size_t a = after[static_cast<std::size_t>(me)];
        std::vector<std::size_t> prev = a == no_task ? std::vector<std::size_t>{} : std::vector<std::size_t>{a};
        const int rel = (me - root + p) % p;
        int mask = 1;
        while (mask < p) {
            if ((rel & mask) != 0) {
                prev = {g.receive(me, (rel - mask + root) % p, prev)};
                break;
            }
            mask <<= 1;
        }
        for (mask >>= 1; mask > 0; mask >>= 1) {
            if (rel + mask < p) {
                g.send(me, (rel + mask + root) % p, bytes, prev);
            }
        }
    }
}

task_graph exchange_graph(std::span<const plan::rank_schedule> ranks, const work_costs& work)
{
    if (ranks.empty()) {
        throw std::invalid_argument("treefold: exchange_graph needs every rank's schedule (none given)");
    }
    const int p = static_cast<int>(ranks.size());
    task_graph g(p);
    std::vector<std::size_t> last(static_cast<std::size_t>(p), no_task);
    for (int r = 0; r < p; ++r) {
        const plan::rank_schedule& s = ranks[static_cast<std::size_t>(r)];
        if (s.rank != r || s.p != p) {
            throw std::invalid_argument("treefold: exchange_graph's schedule " + std::to_string(r) + " is rank " +
                                        std::to_string(s.rank) + " of " + std::to_string(s.p));
        }
        std::size_t prev = g.compute(r, work.per_call);
        auto after = [&prev] { return std::vector<std::size_t>{prev}; };
        std::vector<std::size_t> posted(s.receives.size(), no_task);
        auto receive = [&](std::uint32_t m) {
            return posted[m] != no_task ? posted[m] : g.receive(r, s.receives[m].peer, after());
        };
        auto merge = [&](std::size_t received, std::uint64_t values) {
            return g.compute(r, work.per_value * static_cast<double>(values), {prev, received});
        };
        for (const plan::step& st : s.steps) {
            switch (st.what) {
            case plan::op::local:
            case plan::op::compute:
                prev = g.compute(r, work.per_element * static_cast<double>(index_tree::cover_size(s.local[st.arg], s.n)),
                                 after());
                break;
            case plan::op::post: posted[st.arg] = g.receive(r, s.receives[st.arg].peer, after()); break;
            case plan::op::take: prev = merge(receive(st.arg), s.receives[st.arg].count); break;
            case plan::op::receive: prev = receive(st.arg); break;
            case plan::op::push_in: prev = g.compute(r, work.per_value, after()); break;
            case plan::op::send:
            case plan::op::flush:
                prev = g.send(r, s.sends[st.arg].peer, s.header_bytes + s.sends[st.arg].count * work.value_bytes,
                              after());
                break;
            default: break; // moves on the rank's own stack: no cost in the model
            }
        }
        last[static_cast<std::size_t>(r)] = prev;
    }
    if (ranks[0].result != plan::result_at::everywhere && ranks[0].n > 0) {
        add_broadcast(g, ranks[0].finisher, work.value_bytes, last);
    }
    return g;
}

namespace {

std::string escaped(const std::string& s)
{
    std::string out;
    for (const char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

const char* fill_of(task_kind k)
{
    switch (k) {
    case task_kind::send: return "#4a7bd0";
    case task_kind::receive: return "#3fa34d";
    case task_kind::compute: break;
    }
    return "#999999";
}

} // namespace

void write_svg(std::ostream& out, const task_graph& g, const timeline& t, const svg_options& o)
{
    if (t.times.size() != g.tasks().size()) {
        throw std::invalid_argument("treefold: write_svg needs the timeline of this task graph");
    }
    const int lanes = std::min(g.ranks(), std::max(o.max_ranks, 1));
    const double left = 60;
    const double top = 30;
    const double span = t.makespan > 0 ? t.makespan : 1.0;
    const double scale = o.width / span;
    const double height = top + lanes * o.lane + 40;
    auto x_of = [&](double time) { return left + time * scale; };
    auto y_of = [&](int rank) { return top + rank * o.lane; };
    std::vector<bool> critical(g.tasks().size(), false);
    for (const auto& s : t.critical_path) {
        critical[s.task] = true;
    }
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + o.width + 20 << "\" height=\"" << height
        << "\" font-family=\"sans-serif\" font-size=\"10\">\n";
    out << "<text x=\"" << left << "\" y=\"16\" font-size=\"12\">" << escaped(o.title) << " (makespan " << t.makespan
        << ")</text>\n";
    for (int r = 0; r < lanes; ++r) {
        out << "<text x=\"4\" y=\"" << y_of(r) + o.lane * 0.7 << "\">rank " << r << "</text>\n";
    }
    const auto& tasks = g.tasks();
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (tasks[i].rank >= lanes) {
            continue;
        }
        const task_time& tt = t.times[i];
        out << "<rect x=\"" << x_of(tt.start) << "\" y=\"" << y_of(tasks[i].rank) + 2 << "\" width=\""
            << std::max((tt.end - tt.start) * scale, 0.5) << "\" height=\"" << o.lane - 4 << "\" fill=\""
            << fill_of(tasks[i].kind) << "\"" << (critical[i] ? " stroke=\"red\" stroke-width=\"1.5\"" : "") << "/>\n";
    }
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const task& s = tasks[i];
        if (s.kind != task_kind::send || s.rank >= lanes || s.peer >= lanes) {
            continue;
        }
        const task_time& rt = t.times[s.match];
        out << "<line x1=\"" << x_of(t.times[i].end) << "\" y1=\"" << y_of(s.rank) + o.lane / 2 << "\" x2=\""
            << x_of(rt.arrival) << "\" y2=\"" << y_of(s.peer) + o.lane / 2 << "\" stroke=\""
            << (critical[s.match] && t.times[s.match].bound == bound_by::message ? "red" : "#333333")
            << "\" stroke-width=\"0.6\"/>\n";
    }
    const double axis = top + lanes * o.lane + 8;
    out << "<line x1=\"" << left << "\" y1=\"" << axis << "\" x2=\"" << left + o.width << "\" y2=\"" << axis
        << "\" stroke=\"black\"/>\n";
    for (int k = 0; k <= 5; ++k) {
        const double time = span * k / 5;
        out << "<text x=\"" << x_of(time) << "\" y=\"" << axis + 14 << "\" text-anchor=\"middle\">" << time << "</text>\n";
    }
    out << "</svg>\n";
}

} // namespace treefold::model
