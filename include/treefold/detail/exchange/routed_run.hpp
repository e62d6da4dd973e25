#pragma once
/// The run loop the direct and the one-sided exchanges share; they differ only in how pieces
/// travel (the port).

#include "treefold/config.hpp"
#include "treefold/concepts.hpp"
#include "treefold/detail/exchange/outcome.hpp"
#include "treefold/frontier.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/detail/layout/routes.hpp"
#include "treefold/detail/net/transport.hpp"
#include "treefold/index_tree/decompose.hpp"

#include <cstddef>
#include <exception>
#include <optional>
#include <utility>

namespace treefold::exchange {

/// The base of a plan (Port, CRTP) along layout::direct_routes. A rank pushes its block's
/// maximal nodes and then, in index order, the pieces it is owed onto a frontier; whenever
/// the node on top is its next outbound subtree root, it leaves at once. Dependencies only
/// point from lower to higher indices, so nothing can deadlock.
///
/// The port: begin(counters) starts a call; before_node(len) comes before a local node of
/// len elements is computed; send(to, value) sends outbound root to.v to rank to.rank;
/// flush() comes before every blocking take and at the end of a call that did not fail;
/// take(from, remote) returns incoming piece from.v, or sets `remote` to the failure its
/// source sent instead; after a failure, drop_unsent() discards what send() still holds
/// (returning how many) and send_failure(target, f) tells a target. A rank with an empty block
/// has no part in the tree, but its size can still be wrong: it report()s to the finisher
/// (an empty message or its failure), which take_report()s each one after its own work (one
/// small message per empty rank per call; layouts without empty blocks send none).
template <class Port, class T>
class routed_run {
public:
    routed_run(const layout::block_layout& layout, int rank)
        : me_(rank), n_(layout.size()), routes_(layout, rank), stack_(layout.size())
    {
    }

    /// The rank that ends with the root.
    int finisher() const { return routes_.finisher; }

    /// Runs the exchange. `local` points at this rank's block (ignored when `failed` is
    /// set on entry). On return the finisher's outcome holds the root or a failure; other
    /// ranks' outcome holds a failure only if they saw one. `own_error` receives the
    /// exception the operator threw on this rank, if any.
    template <class Kernel, class Op>
    outcome<T> run(const T* local, Op& op, std::optional<failure> failed, net::counters& count,
                   std::exception_ptr& own_error)
    {
        Port& port = static_cast<Port&>(*this);
        port.begin(count);
        stack_.reset(n_);
        next_out_ = 0;
        std::size_t next_in = 0;
        int dead_source = -1; // sent a failure: its stream has ended
        if (routes_.reports) {
            port.report(routes_.finisher, failed);
        }
        for (std::size_t i = 0; i < routes_.local_nodes.size() && !failed; ++i) {
            const index_tree::node v = routes_.local_nodes[i];
            const index_tree::index_t len = index_tree::cover_size(v, n_);
            port.before_node(len);
            guarded(me_, failed, own_error,
                    [&] { push(port, v, treefold::detail::local_node<Kernel>(local, v.x - routes_.s, len, op), op); });
        }
        while (next_in < routes_.incoming.size() && !failed) {
            port.flush();
            const layout::routed_node& piece = routes_.incoming[next_in];
            std::optional<failure> remote;
            T value = port.take(piece, remote);
            if (remote) {
                failed = remote;
                dead_source = piece.rank;
                break;
            }
            ++next_in;
            guarded(me_, failed, own_error, [&] { push(port, piece.v, std::move(value), op); });
        }
        if (!failed) {
            port.flush();
        } else {
            // A failure to every target still owed a piece (once each: a target's pieces are
            // adjacent), then every piece still owed to this rank is taken, so no sender waits
            // and nothing is left behind for the next call.
            int told = -1;
            for (std::size_t k = next_out_ - port.drop_unsent(); k < routes_.outbound.size(); ++k) {
                if (routes_.outbound[k].rank != told) {
                    told = routes_.outbound[k].rank;
                    port.send_failure(told, *failed);
                }
            }
            for (std::size_t k = next_in; k < routes_.incoming.size(); ++k) {
                if (routes_.incoming[k].rank != dead_source) {
                    std::optional<failure> remote;
                    (void)port.take(routes_.incoming[k], remote);
                    if (remote) {
                        dead_source = routes_.incoming[k].rank;
                    }
                }
            }
        }
        for (const int r : routes_.reporters) {
            std::optional<failure> remote = port.take_report(r);
            failed = failed ? failed : remote;
        }
        return finish(failed, stack_, me_ == routes_.finisher && n_ > 0);
    }

private:
    template <class Op>
    void push(Port& port, index_tree::node v, T value, Op& op)
    {
        stack_.push(v, std::move(value), op);
        while (next_out_ < routes_.outbound.size() && !stack_.empty() &&
               stack_.back_node() == routes_.outbound[next_out_].v) {
            port.send(routes_.outbound[next_out_], stack_.pop_back());
            ++next_out_;
        }
    }

    int me_;
    index_tree::index_t n_;
    layout::direct_routes routes_;
    frontier<T> stack_; // per call, capacity kept
    std::size_t next_out_ = 0;
};

} // namespace treefold::exchange
