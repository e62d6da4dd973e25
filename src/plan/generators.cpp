// The generators of rank schedules: direct, the rank-ordered trees and allreduce schedules.

#include "treefold/plan/generators.hpp"

#include "builder.hpp"
#include "treefold/layout/detail/routes.hpp"
#include "treefold/index_tree/node.hpp"
#include "treefold/topology/schedule.hpp"
#include "treefold/topology/tree_shape.hpp"

#include <algorithm>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace treefold::plan {

namespace {

using index_tree::node;

/// The rank's position in index order.
int position_of(const layout::block_layout& layout, int rank)
{
    const auto order = layout.index_order();
    return static_cast<int>(std::find(order.begin(), order.end(), rank) - order.begin());
}

/// The positions (the ranks in index order) of a layout of n elements.
struct positions {
    std::span<const int> order;              // layout.index_order()
    std::vector<index_tree::index_t> starts; // layout::position_starts(layout)
    index_tree::index_t n;

    /// The rank at position q.
    int rank_at(int q) const { return order[static_cast<std::size_t>(q)]; }
    /// The maximal nodes of positions [lo, hi).
    std::vector<node> range(int lo, int hi) const
    {
        return index_tree::maximal_nodes(starts[static_cast<std::size_t>(lo)], starts[static_cast<std::size_t>(hi)], n);
    }
};

rank_schedule header(const layout::block_layout& layout, int rank, std::string exchange)
{
    if (rank < 0 || rank >= layout.ranks()) {
        throw std::invalid_argument("treefold: schedule of exchange '" + exchange + "' asked for rank " +
                                    std::to_string(rank) + " of " + std::to_string(layout.ranks()));
    }
    rank_schedule s;
    s.exchange = std::move(exchange);
    s.p = layout.ranks();
    s.rank = rank;
    s.n = layout.size();
    s.block_start = layout.block_of(rank).start;
    s.local = layout::block_nodes(layout, rank);
    return s;
}

/// The direct exchange's walk for one rank: local nodes, then incoming pieces, each pushed,
/// with the outbound roots leaving the stack as they appear. `grouping` gives, for each
/// source, the sizes of its messages to this rank in order (empty: pieces are not taken,
/// as when only the rank's sends are wanted).
void walk_direct(const layout::block_layout& layout, int rank, direct_buffering rules, rank_schedule& s,
                 const std::map<int, std::vector<std::uint32_t>>* grouping)
{
    const layout::direct_routes routes(layout, rank);
    detail::builder b(s);
    s.finisher = routes.finisher;
    if (routes.reports) {
        b.step(op::send, b.send(routes.finisher));
    }
    std::vector<node> stack;
    std::size_t next_out = 0;
    long open = -1; // the message being filled
    auto flush = [&] {
        if (open >= 0) {
            b.step(op::flush, static_cast<std::uint32_t>(open));
            open = -1;
        }
    };
    auto push = [&](node v) {
        detail::push_name(stack, v, s.n);
        while (next_out < routes.outbound.size() && !stack.empty() && stack.back() == routes.outbound[next_out].v) {
            const layout::routed_node& to = routes.outbound[next_out];
            if (open >= 0 && s.sends[static_cast<std::size_t>(open)].peer != to.rank) {
                flush();
            }
            if (open < 0) {
                open = b.send(to.rank);
            }
            b.add_to_send(static_cast<std::uint32_t>(open), to.v);
            b.step(op::pop_out, static_cast<std::uint32_t>(open));
            stack.pop_back();
            ++next_out;
            if (b.send_size(static_cast<std::uint32_t>(open)) == rules.values_per_message) {
                flush();
            }
        }
    };
    for (std::size_t k = 0; k < s.local.size(); ++k) {
        if (index_tree::cover_size(s.local[k], s.n) > rules.flush_before_elements) {
            flush();
        }
        b.step(op::local, static_cast<std::uint32_t>(k));
        push(s.local[k]);
    }
    // Pieces arrive in messages of the sizes their sources send; the buffer is flushed
    // before every piece (a take may block).
    std::uint32_t left = 0;    // pieces still unread in the current message
    std::uint32_t message = 0; // the current receive message
    std::uint32_t at = 0;      // the next piece's place in it
    std::map<int, std::size_t> next_of; // per source, its next message
    for (std::size_t i = 0; i < routes.incoming.size(); ++i) {
        const layout::routed_node& piece = routes.incoming[i];
        flush();
        if (grouping != nullptr) {
            if (left == 0 || s.receives[message].peer != piece.rank) {
                const auto& sizes = grouping->at(piece.rank);
                const std::uint32_t size = sizes.at(next_of[piece.rank]++);
                std::vector<node> nodes;
                for (std::size_t j = i; j < i + size; ++j) {
                    if (j >= routes.incoming.size() || routes.incoming[j].rank != piece.rank) {
                        throw std::logic_error("treefold: direct schedule of rank " + std::to_string(rank) +
                                               ": a message from rank " + std::to_string(piece.rank) +
                                               " does not hold consecutive pieces (internal error)");
                    }
                    nodes.push_back(routes.incoming[j].v);
                }
                message = b.receive(piece.rank, std::move(nodes));
                left = size;
                at = 0;
                b.step(op::receive, message);
            }
            b.push_in(message, at++);
            --left;
        }
        push(piece.v);
    }
    flush();
    for (const int r : routes.reporters) {
        b.step(op::take, b.receive(r, {}));
    }
    b.step(op::wait_sends);
    b.finish();
}

} // namespace

rank_schedule direct(const layout::block_layout& layout, int rank, direct_buffering rules)
{
    if (rules.values_per_message == 0) {
        throw std::invalid_argument("treefold: the direct exchange needs at least one value per message");
    }
    rank_schedule s = header(layout, rank, "direct");
    // The sizes of the messages each source sends here, from the source's own walk.
    std::map<int, std::vector<std::uint32_t>> grouping;
    for (const layout::routed_node& piece : layout::direct_routes(layout, rank).incoming) {
        if (grouping.count(piece.rank) == 0) {
            rank_schedule theirs = header(layout, piece.rank, "direct");
            walk_direct(layout, piece.rank, rules, theirs, nullptr);
            auto& sizes = grouping[piece.rank];
            for (const message& m : theirs.sends) {
                if (m.peer == rank) {
                    sizes.push_back(m.count);
                }
            }
        }
    }
    walk_direct(layout, rank, rules, s, &grouping);
    return s;
}

rank_schedule tree(const layout::block_layout& layout, int rank, const shape_functions& shape, bool mpi_broadcast)
{
    rank_schedule s = header(layout, rank, shape.name);
    const int p = layout.ranks();
    const positions at{layout.index_order(), layout::position_starts(layout), s.n};
    const int position = position_of(layout, rank);
    s.finisher = at.rank_at(shape.root(p));
    s.result = mpi_broadcast ? result_at::finisher_mpi : result_at::finisher;
    detail::builder b(s);
    const std::vector<topology::tree_child> children = shape.children(position, p);
    // Every child's message is posted first, so it lands while the block is computed.
    std::vector<std::uint32_t> from;
    int lo = position;
    int hi = position + 1;
    for (const topology::tree_child& c : children) {
        from.push_back(b.receive(at.rank_at(c.position), at.range(c.subtree_begin, c.subtree_end)));
        b.step(op::post, from.back());
        lo = std::min(lo, c.subtree_begin);
        hi = std::max(hi, c.subtree_end);
    }
    for (std::size_t k = 0; k < s.local.size(); ++k) {
        b.step(op::compute, static_cast<std::uint32_t>(k));
    }
    // Children before the position, its own nodes, children after it.
    bool own_done = false;
    for (std::size_t c = 0; c <= children.size(); ++c) {
        if (!own_done && (c == children.size() || children[c].subtree_end > position)) {
            for (std::size_t k = 0; k < s.local.size(); ++k) {
                b.step(op::push_local, static_cast<std::uint32_t>(k));
            }
            own_done = true;
        }
        if (c < children.size()) {
            b.step(op::take, from[c]);
        }
    }
    const int parent = shape.parent(position, p);
    if (parent >= 0) {
        b.step(op::send, b.send(at.rank_at(parent), at.range(lo, hi)));
    }
    b.step(op::wait_sends);
    b.finish();
    return s;
}

rank_schedule allreduce(const layout::block_layout& layout, int rank, const topology::schedule& sched, const char* name)
{
    rank_schedule s = header(layout, rank, name);
    const int p = layout.ranks();
    sched.check(p);
    s.parameters = sched.to_string();
    s.result = result_at::everywhere;
    const positions at{layout.index_order(), layout::position_starts(layout), s.n};
    detail::builder b(s);
    for (std::size_t k = 0; k < s.local.size(); ++k) {
        b.step(op::local, static_cast<std::uint32_t>(k));
    }
    for (const topology::round_plan& round : topology::rounds_of(sched, p, position_of(layout, rank))) {
        for (const int q : round.to) {
            b.step(op::send, b.send(at.rank_at(q), at.range(round.lo, round.hi)));
        }
        std::vector<std::uint32_t> from;
        for (const auto& src : round.from) {
            from.push_back(b.receive(at.rank_at(src.position), at.range(src.lo, src.hi)));
            b.step(op::post, from.back());
        }
        if (!from.empty()) {
            // The pieces left to right: the received ones, with the own value at self_at.
            if (!round.own) {
                b.step(op::drop);
            } else if (round.self_at > 0) {
                b.step(op::hold);
            }
            for (std::size_t i = 0; i < from.size(); ++i) {
                if (round.own && round.self_at > 0 && i == round.self_at) {
                    b.step(op::push_held);
                }
                b.step(op::take, from[i]);
            }
            if (round.own && round.self_at > 0 && round.self_at == from.size()) {
                b.step(op::push_held);
            }
        }
        if (!round.to.empty()) {
            b.step(op::wait_sends);
        }
    }
    b.finish();
    return s;
}

} // namespace treefold::plan
