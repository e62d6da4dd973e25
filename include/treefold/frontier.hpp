#pragma once
/// The frontier of an index range: its maximal tree nodes with their values, and the exact
/// merge of adjacent frontiers.
///
/// Appending the nodes of the frontier of [m, e) one by one to the frontier of [s, m)
/// combines siblings at the junction (and climbs over pass-through parents near N), giving
/// exactly the frontier of [s, e). Every value is a node of the fixed tree computed as
/// op(left, right) once, so the merge is bitwise associative (and not commutative).

#include "treefold/config.hpp"
#include "treefold/index_tree/node.hpp"

#include <cassert>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace treefold {

/// Nodes and values of a frontier, in index order, over a tree of `size()` elements.
template <class T>
class frontier {
public:
    /// An empty frontier (of an empty range) in a tree of `n` elements.
    explicit frontier(index_tree::index_t n = 0) : n_(n)
    {
        nodes_.reserve(index_tree::max_frontier_nodes);
        values_.reserve(index_tree::max_frontier_nodes);
    }

    /// Forgets all nodes (keeps capacity) and sets the tree size.
    void reset(index_tree::index_t n)
    {
        n_ = n;
        nodes_.clear();
        values_.clear();
    }

    /// Appends node `v` (which must start where the frontier ends) with its value and
    /// combines siblings with `op(left, right)` until no two adjacent nodes are siblings.
    template <class Op>
    void push(index_tree::node v, T value, Op& op)
    {
        assert(nodes_.empty() || index_tree::cover_end(nodes_.back(), n_) == v.x);
        while (!nodes_.empty()) {
            const index_tree::node left = nodes_.back();
            if (left.level != v.level || !index_tree::is_left_child(left) ||
                left.x + index_tree::span(left.level) != v.x) {
                break;
            }
            value = op(std::as_const(values_.back()), std::as_const(value));
            nodes_.pop_back();
            values_.pop_back();
            v = index_tree::promote(index_tree::parent(left), n_);
        }
        nodes_.push_back(v);
        values_.push_back(std::move(value));
    }

    /// Appends every node of `right` (the frontier of the adjacent range to the right).
    template <class Op>
    void merge(const frontier& right, Op& op)
    {
        for (std::size_t i = 0; i < right.nodes_.size(); ++i) {
            push(right.nodes_[i], right.values_[i], op);
        }
    }

    /// Removes the last node and returns its value.
    T pop_back()
    {
        T v = std::move(values_.back());
        nodes_.pop_back();
        values_.pop_back();
        return v;
    }

    /// The number of elements of the tree the nodes belong to.
    index_tree::index_t tree_size() const { return n_; }
    /// The number of nodes held.
    std::size_t node_count() const { return nodes_.size(); }
    /// Whether no node is held.
    bool empty() const { return nodes_.empty(); }
    /// The nodes, left to right (parallel to values()).
    std::span<const index_tree::node> nodes() const { return nodes_; }
    /// The nodes' values, left to right (parallel to nodes()).
    std::span<const T> values() const { return values_; }
    /// First index covered (nodes must be non-empty).
    index_tree::index_t begin_index() const { return nodes_.front().x; }
    /// One past the last index covered (nodes must be non-empty).
    index_tree::index_t end_index() const { return index_tree::cover_end(nodes_.back(), n_); }

private:
    index_tree::index_t n_;
    std::vector<index_tree::node> nodes_;
    std::vector<T> values_;
};

} // namespace treefold
