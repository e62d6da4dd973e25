// Rank schedules as values: printing, counting, and the one-process check of a set of them.

#include "treefold/plan/schedule.hpp"

#include "builder.hpp"
#include "treefold/index_tree/node.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <sstream>
#include <utility>

namespace treefold::plan {

const char* op_name(op o)
{
    static constexpr std::array names{"local", "compute", "push_local", "post",  "take",      "receive", "push_in",
                                      "send",  "pop_out", "flush",      "hold",  "push_held", "drop",    "wait_sends"};
    static_assert(names.size() == static_cast<std::size_t>(op::wait_sends) + 1, "one name per op, in enum order");
    const auto i = static_cast<std::size_t>(o);
    return i < names.size() ? names[i] : "?";
}

std::uint64_t rank_schedule::values_sent() const
{
    std::uint64_t v = 0;
    for (const message& m : sends) {
        v += m.count;
    }
    return v;
}

std::uint64_t rank_schedule::bytes_sent(std::uint64_t value_bytes) const
{
    std::uint64_t b = 0;
    for (const message& m : sends) {
        b += header_bytes + m.count * value_bytes;
    }
    return b;
}

namespace {

void print_node(std::ostream& out, index_tree::node v) { out << v.x << ':' << v.level; }

void print_message(std::ostream& out, const rank_schedule& s, const message& m, const char* dir)
{
    out << ' ' << dir << " rank " << m.peer << " [";
    const char* sep = "";
    for (const auto v : s.nodes_of(m)) {
        out << sep;
        print_node(out, v);
        sep = " ";
    }
    out << ']';
}

} // namespace

std::string rank_schedule::to_string() const
{
    std::ostringstream out;
    out << "exchange " << exchange;
    if (!parameters.empty()) {
        out << " (" << parameters << ')';
    }
    out << ", p " << p << ", rank " << rank << ", N " << n << ", block from " << block_start << ", result "
        << (result == result_at::everywhere ? std::string("on every rank")
                                            : "on rank " + std::to_string(finisher) +
                                                  (result == result_at::finisher_mpi ? " (then MPI_Bcast)" : ""))
        << '\n';
    for (const step& st : steps) {
        out << "  " << op_name(st.what);
        switch (st.what) {
        case op::local:
        case op::compute:
        case op::push_local:
            out << ' ';
            print_node(out, local[st.arg]);
            break;
        case op::push_in:
            out << ' ';
            print_node(out, nodes[st.arg]);
            break;
        case op::post:
        case op::take:
        case op::receive: print_message(out, *this, receives[st.arg], "from"); break;
        case op::send:
        case op::flush: print_message(out, *this, sends[st.arg], "to"); break;
        case op::pop_out: out << " to rank " << sends[st.arg].peer; break;
        default: break;
        }
        out << '\n';
    }
    return out.str();
}

totals count(std::span<const rank_schedule> ranks)
{
    totals t;
    for (const rank_schedule& s : ranks) {
        t.messages += s.sends.size();
        t.values += s.values_sent();
    }
    return t;
}

std::uint64_t broadcast_messages(const rank_schedule& any_rank)
{
    if (any_rank.result == result_at::everywhere || any_rank.n == 0) {
        return 0;
    }
    return static_cast<std::uint64_t>(any_rank.p - 1);
}

namespace {

/// One rank's state in verify's run.
struct runner {
    const rank_schedule* s = nullptr;
    std::size_t pc = 0;
    std::vector<index_tree::node> stack;
    std::vector<index_tree::node> held;
    std::vector<index_tree::node> slot; // computed local nodes (index k), not yet pushed
    std::vector<int> computed;          // per local node: times computed
    std::vector<int> pushed;            // per local node: times pushed
    std::vector<std::vector<index_tree::node>> out; // per send message: nodes popped into it
    std::vector<bool> received;
    std::vector<bool> sent;
};

std::string at(const runner& r)
{
    return "rank " + std::to_string(r.s->rank) + " (" + r.s->exchange + "), step " + std::to_string(r.pc) + " (" +
           op_name(r.s->steps[r.pc].what) + ")";
}

} // namespace

verdict verify(std::span<const rank_schedule> ranks)
{
    const int p = static_cast<int>(ranks.size());
    auto fail = [](std::string why) { return verdict{false, std::move(why)}; };
    if (p == 0) {
        return fail("no schedules");
    }
    const index_tree::index_t n = ranks[0].n;
    std::vector<runner> rs(ranks.size());
    for (int r = 0; r < p; ++r) {
        const rank_schedule& s = ranks[static_cast<std::size_t>(r)];
        if (s.rank != r || s.p != p || s.n != n || s.exchange != ranks[0].exchange) {
            return fail("schedule " + std::to_string(r) + " is not rank " + std::to_string(r) + " of the same call");
        }
        runner& x = rs[static_cast<std::size_t>(r)];
        x.s = &s;
        x.slot.resize(s.local.size());
        x.computed.assign(s.local.size(), 0);
        x.pushed.assign(s.local.size(), 0);
        x.out.resize(s.sends.size());
        x.received.assign(s.receives.size(), false);
        x.sent.assign(s.sends.size(), false);
        for (const auto& [messages, verb] :
             {std::pair{&s.sends, " sends to rank "}, std::pair{&s.receives, " receives from rank "}}) {
            for (const message& m : *messages) {
                if (m.peer < 0 || m.peer >= p || m.peer == r) {
                    return fail("rank " + std::to_string(r) + verb + std::to_string(m.peer));
                }
            }
        }
    }
    // Messages in flight per (sender, receiver), in send order: their nodes.
    std::map<std::pair<int, int>, std::deque<std::vector<index_tree::node>>> wire;
    auto push = [&](runner& x, index_tree::node v) -> std::string {
        if (!index_tree::is_node(v, n)) {
            return at(x) + ": " + std::to_string(v.x) + ":" + std::to_string(v.level) + " is no node of the tree";
        }
        if (!detail::push_name(x.stack, v, n)) {
            return at(x) + ": node " + std::to_string(v.x) + ":" + std::to_string(v.level) +
                   " does not follow the stack's range (not in index order)";
        }
        return {};
    };
    bool progress = true;
    std::size_t done = 0;
    while (done < rs.size() && progress) {
        progress = false;
        done = 0;
        for (runner& x : rs) {
            const rank_schedule& s = *x.s;
            while (x.pc < s.steps.size()) {
                const step st = s.steps[x.pc];
                const auto k = static_cast<std::size_t>(st.arg);
                std::string error;
                switch (st.what) {
                case op::local:
                case op::compute:
                    if (k >= s.local.size()) {
                        return fail(at(x) + ": no local node " + std::to_string(k));
                    }
                    ++x.computed[k];
                    if (st.what == op::local) {
                        ++x.pushed[k];
                        error = push(x, s.local[k]);
                    }
                    break;
                case op::push_local:
                    if (k >= s.local.size() || x.computed[k] != 1 || x.pushed[k] != 0) {
                        return fail(at(x) + ": pushes a local node not computed once");
                    }
                    ++x.pushed[k];
                    error = push(x, s.local[k]);
                    break;
                case op::post: break;
                case op::take:
                case op::receive: {
                    if (k >= s.receives.size() || x.received[k]) {
                        return fail(at(x) + ": takes a message twice or one that does not exist");
                    }
                    const message& m = s.receives[k];
                    auto& q = wire[{m.peer, s.rank}];
                    if (q.empty()) {
                        goto blocked; // waits for the sender
                    }
                    const auto sn = s.nodes_of(m);
                    if (q.front() != std::vector<index_tree::node>(sn.begin(), sn.end())) {
                        return fail(at(x) + ": the message from rank " + std::to_string(m.peer) +
                                    " holds other nodes than this rank expects");
                    }
                    q.pop_front();
                    x.received[k] = true;
                    if (st.what == op::take) {
                        for (const auto v : sn) {
                            if (error = push(x, v); !error.empty()) {
                                break;
                            }
                        }
                    }
                    break;
                }
                case op::push_in:
                    if (k >= s.nodes.size()) {
                        return fail(at(x) + ": no node " + std::to_string(k));
                    }
                    error = push(x, s.nodes[k]);
                    break;
                case op::send:
                case op::flush: { // send: the stack's nodes; flush: those popped into the message
                    const bool flush = st.what == op::flush;
                    if (k >= s.sends.size() || x.sent[k]) {
                        return fail(at(x) + (flush ? ": flushes" : ": sends") +
                                    " a message twice or one that does not exist");
                    }
                    const std::vector<index_tree::node>& sent = flush ? x.out[k] : x.stack;
                    const auto sn = s.nodes_of(s.sends[k]);
                    if (sent != std::vector<index_tree::node>(sn.begin(), sn.end())) {
                        return fail(at(x) + (flush ? ": the nodes popped are not the message's"
                                                   : ": the stack is not the message's nodes"));
                    }
                    x.sent[k] = true;
                    wire[{s.rank, s.sends[k].peer}].push_back(sent);
                    break;
                }
                case op::pop_out: {
                    if (k >= s.sends.size() || x.stack.empty()) {
                        return fail(at(x) + ": pops from an empty stack or into no message");
                    }
                    x.out[k].push_back(x.stack.back());
                    x.stack.pop_back();
                    break;
                }
                case op::hold:
                    x.held = std::move(x.stack);
                    x.stack.clear();
                    break;
                case op::push_held:
                    for (const auto v : x.held) {
                        if (error = push(x, v); !error.empty()) {
                            break;
                        }
                    }
                    x.held.clear();
                    break;
                case op::drop: x.stack.clear(); break;
                case op::wait_sends: break;
                }
                if (!error.empty()) {
                    return fail(error);
                }
                ++x.pc;
                progress = true;
            }
        blocked:
            done += x.pc == s.steps.size() ? 1 : 0;
        }
    }
    for (const runner& x : rs) {
        if (x.pc < x.s->steps.size()) {
            return fail(at(x) + ": waits for a message that is never sent");
        }
    }
    for (const auto& [pair, q] : wire) {
        if (!q.empty()) {
            return fail("rank " + std::to_string(pair.first) + " sends rank " + std::to_string(pair.second) +
                        " a message it never takes");
        }
    }
    for (const runner& x : rs) {
        const rank_schedule& s = *x.s;
        const index_tree::index_t start = s.block_start;
        index_tree::index_t end = start;
        for (const auto v : s.local) {
            end = index_tree::cover_end(v, n);
        }
        if (!s.local.empty() && s.local != index_tree::maximal_nodes(start, end, n)) {
            return fail("rank " + std::to_string(s.rank) + ": its local nodes are not its block's maximal nodes");
        }
        for (std::size_t k = 0; k < s.local.size(); ++k) {
            if (x.computed[k] != 1 || x.pushed[k] != 1) {
                return fail("rank " + std::to_string(s.rank) + ": local node " + std::to_string(k) +
                            " computed " + std::to_string(x.computed[k]) + " times, pushed " +
                            std::to_string(x.pushed[k]));
            }
        }
        for (std::size_t k = 0; k < s.sends.size(); ++k) {
            if (!x.sent[k]) {
                return fail("rank " + std::to_string(s.rank) + ": message " + std::to_string(k) + " is never sent");
            }
        }
        if (s.holds_root()) {
            const index_tree::node root{0, index_tree::root_level(n)};
            if (x.stack.size() != 1 || x.stack[0] != root) {
                return fail("rank " + std::to_string(s.rank) + " should end with the root and does not");
            }
        }
    }
    // Every block's nodes, over all ranks, must tile [0, N) (each maximal node computed once).
    std::vector<std::pair<index_tree::index_t, index_tree::index_t>> covered;
    for (const runner& x : rs) {
        for (const auto v : x.s->local) {
            covered.emplace_back(v.x, index_tree::cover_end(v, n));
        }
    }
    std::sort(covered.begin(), covered.end());
    index_tree::index_t next = 0;
    for (const auto& [b, e] : covered) {
        if (b != next) {
            return fail("the blocks' nodes do not tile [0, N): a gap or an overlap at index " + std::to_string(b));
        }
        next = e;
    }
    if (next != n) {
        return fail("the blocks' nodes end at " + std::to_string(next) + ", not at N");
    }
    return {};
}

} // namespace treefold::plan
