#pragma once
/// The tree exchange: frontiers merged along a rank-ordered reduction tree.
///
/// Positions are the ranks in index order (non-empty blocks by start, then empty ranks).
/// Every subtree of the shape covers a contiguous range of positions, hence a contiguous
/// index range, so the frontier a child sends has nodes known in advance and only values
/// travel. Each position computes its block's nodes first (they need no message), then
/// appends, in index order, the frontiers of the children before it, its own nodes and the
/// frontiers of the children after it (pre-order shapes have none before, the post-order
/// `inorder` shape none after), and sends the result to its parent: exactly p - 1
/// messages. The rank at the shape's root position ends with the root of the tree.

#include "treefold/collective/tree_shape.hpp"
#include "treefold/concepts.hpp"
#include "treefold/exchange/wire.hpp"
#include "treefold/frontier.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/tree/decompose.hpp"

#include <boost/mpi/communicator.hpp>

#include <algorithm>
#include <exception>
#include <optional>
#include <stdexcept>
#include <vector>

namespace treefold::exchange {

/// Exchange policy: frontier merge along the tree `Shape` (collective::binomial,
/// fibonacci, binary or inorder; see collective/tree_shape.hpp).
template <tree_shape Shape = collective::binomial>
struct tree {
    static constexpr const char* name = Shape::name;

    template <class T>
    class plan {
    public:
        plan(const boost::mpi::communicator& comm, const layout::block_layout& layout)
            : comm_(comm), n_(layout.size()), stack_(layout.size())
        {
            const int p = layout.ranks();
            const auto order = layout.index_order();
            std::vector<treefold::tree::index_t> starts(static_cast<std::size_t>(p) + 1, n_);
            int my_position = 0;
            for (int i = 0; i < p; ++i) {
                const auto& b = layout.block_of(order[static_cast<std::size_t>(i)]);
                if (b.count > 0) {
                    starts[static_cast<std::size_t>(i)] = b.start;
                }
                if (order[static_cast<std::size_t>(i)] == comm.rank()) {
                    my_position = i;
                }
            }
            finisher_ = order[static_cast<std::size_t>(Shape::root(p))];
            const layout::block b = layout.block_of(comm.rank());
            s_ = b.start;
            if (b.count > 0) {
                local_nodes_ = treefold::tree::maximal_nodes(b.start, b.end(), n_);
            }
            local_values_.reserve(local_nodes_.size());
            const int parent_position = Shape::parent(my_position, p);
            parent_ = parent_position < 0 ? -1 : order[static_cast<std::size_t>(parent_position)];
            std::size_t widest = 0;
            for (const auto& c : Shape::children(my_position, p)) {
                child ch;
                ch.rank = order[static_cast<std::size_t>(c.position)];
                ch.nodes = treefold::tree::maximal_nodes(starts[static_cast<std::size_t>(c.subtree_begin)],
                                                         starts[static_cast<std::size_t>(c.subtree_end)], n_);
                if (c.subtree_end <= my_position) {
                    ++before_;
                }
                widest = std::max(widest, ch.nodes.size());
                children_.push_back(std::move(ch));
            }
            inbox_.resize(widest);
        }

        /// The rank that ends with the root (the one at the shape's root position).
        int finisher() const { return finisher_; }

        /// Runs the exchange; same contract as direct::plan::run.
        template <class Kernel, class Op>
        outcome<T> run(const T* local, Op& op, std::optional<failure> failed, counters& count,
                       std::exception_ptr& own_error)
        {
            stack_.reset(n_);
            local_values_.clear();
            auto guarded = [&](auto&& step) {
                try {
                    step();
                } catch (...) {
                    own_error = std::current_exception();
                    failed = failure{failure::code::op_threw, comm_.rank(), 0, 0};
                }
            };
            // Own nodes first: they need no message, so they overlap the children's work.
            for (std::size_t i = 0; i < local_nodes_.size() && !failed; ++i) {
                const treefold::tree::node v = local_nodes_[i];
                guarded([&] {
                    local_values_.push_back(
                        Kernel::reduce_node(local + (v.x - s_), treefold::tree::cover_size(v, n_), op));
                });
            }
            // Pieces in index order. Every child is received even after a failure, so no
            // sender waits and no message is left for the next call.
            for (std::size_t k = 0; k <= children_.size(); ++k) {
                if (k == before_ && !failed) {
                    guarded([&] {
                        for (std::size_t i = 0; i < local_values_.size(); ++i) {
                            stack_.push(local_nodes_[i], std::move(local_values_[i]), op);
                        }
                    });
                }
                if (k == children_.size()) {
                    break;
                }
                const child& c = children_[k];
                std::optional<failure> remote;
                const std::size_t got = wire<T>::recv(comm_, c.rank, inbox_.data(), inbox_.size(), remote);
                if (remote) {
                    failed = failed ? failed : remote;
                    continue;
                }
                if (got != c.nodes.size()) {
                    throw std::logic_error("treefold: frontier of unexpected size (internal error)");
                }
                if (!failed) {
                    guarded([&] {
                        for (std::size_t j = 0; j < got; ++j) {
                            stack_.push(c.nodes[j], std::move(inbox_[j]), op);
                        }
                    });
                }
            }
            outcome<T> out;
            out.failed = failed;
            if (parent_ >= 0) {
                if (failed) {
                    wire<T>::send_failure(comm_, parent_, *failed, count);
                } else {
                    wire<T>::send(comm_, parent_, stack_.values().data(), stack_.values().size(), count);
                }
            } else if (!failed && n_ > 0) {
                out.value = stack_.pop_back();
            }
            return out;
        }

    private:
        struct child {
            int rank = 0;
            std::vector<treefold::tree::node> nodes; // maximal nodes of the child's subtree range
        };

        boost::mpi::communicator comm_;
        treefold::tree::index_t n_;
        treefold::tree::index_t s_ = 0;
        int finisher_ = 0;
        int parent_ = -1;
        std::vector<treefold::tree::node> local_nodes_;
        std::vector<child> children_; // by position
        std::size_t before_ = 0;      // children whose subtrees precede this rank's block
        frontier<T> stack_;
        std::vector<T> inbox_;
        std::vector<T> local_values_; // per-call, capacity kept
    };
};

} // namespace treefold::exchange
