#pragma once
// What the generators share: a stack of node names (the frontier without values) and a
// builder that collects messages and steps and lays the nodes out at the end.

#include "treefold/index_tree/node.hpp"
#include "treefold/plan/schedule.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace treefold::plan::detail {

/// frontier::push on names: combines siblings (climbing over pass-through parents) until no
/// two adjacent nodes are siblings. Returns false, leaving the stack as it was, where `v`
/// does not start where the stack ends.
inline bool push_name(std::vector<index_tree::node>& stack, index_tree::node v, index_tree::index_t n)
{
    if (!stack.empty() && index_tree::cover_end(stack.back(), n) != v.x) {
        return false;
    }
    while (!stack.empty()) {
        const index_tree::node left = stack.back();
        if (left.level != v.level || !index_tree::is_left_child(left) || left.x + index_tree::span(left.level) != v.x) {
            break;
        }
        stack.pop_back();
        v = index_tree::promote(index_tree::parent(left), n);
    }
    stack.push_back(v);
    return true;
}

/// Collects a rank_schedule's messages (node lists of their own while being built) and steps.
class builder {
public:
    explicit builder(rank_schedule& s) : s_(s) {}

    /// A new message to `peer` with `nodes`; its index.
    std::uint32_t send(int peer, std::vector<index_tree::node> nodes = {})
    {
        s_.sends.push_back({peer, 0, 0});
        send_nodes_.push_back(std::move(nodes));
        return static_cast<std::uint32_t>(s_.sends.size() - 1);
    }
    /// Appends a node to send message `m`.
    void add_to_send(std::uint32_t m, index_tree::node v) { send_nodes_[m].push_back(v); }
    /// Nodes of send message `m` so far.
    std::size_t send_size(std::uint32_t m) const { return send_nodes_[m].size(); }
    /// A new message from `peer` with `nodes`; its index.
    std::uint32_t receive(int peer, std::vector<index_tree::node> nodes)
    {
        s_.receives.push_back({peer, 0, 0});
        receive_nodes_.push_back(std::move(nodes));
        return static_cast<std::uint32_t>(s_.receives.size() - 1);
    }
    /// Node j of receive message `m`, as the pool index push_in takes (valid after finish()).
    void push_in(std::uint32_t m, std::uint32_t j) { in_.push_back({s_.steps.size(), m, j}); step(op::push_in, 0); }

    void step(op what, std::uint32_t arg = 0) { s_.steps.push_back({what, arg}); }

    /// Lays the nodes out (receives first, then sends) and fixes push_in's operands.
    void finish()
    {
        s_.nodes.clear();
        std::vector<std::uint32_t> receive_first;
        for (std::size_t m = 0; m < receive_nodes_.size(); ++m) {
            receive_first.push_back(static_cast<std::uint32_t>(s_.nodes.size()));
            s_.receives[m].first = receive_first.back();
            s_.receives[m].count = static_cast<std::uint32_t>(receive_nodes_[m].size());
            s_.nodes.insert(s_.nodes.end(), receive_nodes_[m].begin(), receive_nodes_[m].end());
        }
        for (std::size_t m = 0; m < send_nodes_.size(); ++m) {
            s_.sends[m].first = static_cast<std::uint32_t>(s_.nodes.size());
            s_.sends[m].count = static_cast<std::uint32_t>(send_nodes_[m].size());
            s_.nodes.insert(s_.nodes.end(), send_nodes_[m].begin(), send_nodes_[m].end());
        }
        for (const auto& in : in_) {
            s_.steps[in.at].arg = receive_first[in.m] + in.j;
        }
    }

private:
    struct pending_in {
        std::size_t at;
        std::uint32_t m;
        std::uint32_t j;
    };
    rank_schedule& s_;
    std::vector<std::vector<index_tree::node>> send_nodes_;
    std::vector<std::vector<index_tree::node>> receive_nodes_;
    std::vector<pending_in> in_;
};

} // namespace treefold::plan::detail
