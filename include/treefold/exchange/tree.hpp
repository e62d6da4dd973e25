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

#include "treefold/config.hpp"
#include "treefold/concepts.hpp"
#include "treefold/detail/exchange/outcome.hpp"
#include "treefold/detail/net/transport.hpp"
#include "treefold/detail/net/tree_walk.hpp"
#include "treefold/exchange/list.hpp"
#include "treefold/frontier.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/detail/layout/routes.hpp"
#include "treefold/topology/tree_shape.hpp"
#include "treefold/index_tree/decompose.hpp"

#include <boost/mpi/communicator.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <exception>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

namespace treefold::exchange {

namespace detail {

/// The exchange name of tree<Shape, Broadcast>: the shape's name, except that an M-ary shape
/// ("M-ary") is "maryM"; with the result sent out through MPI_Bcast, "dualM" or "<shape>_dual".
template <tree_shape Shape, result_broadcast Broadcast>
inline constexpr auto tree_name = [] {
    const std::string_view shape = Shape::name;
    const bool m_ary = shape.ends_with("-ary");
    const std::string_view degree = shape.substr(0, shape.find('-'));
    if (Broadcast == result_broadcast::mpi) {
        return m_ary ? concat_name({"dual", degree}) : concat_name({shape, "_dual"});
    }
    return m_ary ? concat_name({"mary", degree}) : concat_name({shape});
}();

} // namespace detail

/// Exchange policy: frontier merge along the tree `Shape` (topology::binomial,
/// fibonacci, binary, inorder or m_ary<M>; see topology/tree_shape.hpp). `Broadcast` says how
/// all_reduce's result then leaves the shape's root: treefold's binomial broadcast, or the MPI
/// library's MPI_Bcast (a *dual tree*: the summation tree fixed by the index, the
/// communication tree the shape, the broadcast the library's own).
template <tree_shape Shape = topology::binomial, result_broadcast Broadcast = result_broadcast::point_to_point>
struct tree {
    /// The exchange's one name (see detail::tree_name): "binomial", "mary4", "dual4", ...
    static constexpr const char* name = detail::tree_name<Shape, Broadcast>.data();

    /// This rank's position in the shape, its parent and children, and the frontier nodes
    /// each child sends (known from the layout, so only values travel).
    template <class T>
    class plan {
    public:
        /// Plans from the layout and the shape alone (no communication); the messages go on
        /// `comm`.
        plan(const boost::mpi::communicator& comm, const layout::block_layout& layout)
            : comm_(comm), n_(layout.size()), s_(layout.block_of(comm.rank()).start),
              local_nodes_(layout::block_nodes(layout, comm.rank())), stack_(layout.size())
        {
            const int p = layout.ranks();
            const auto order = layout.index_order();
            const auto starts = layout::position_starts(layout);
            position_ = static_cast<int>(std::find(order.begin(), order.end(), comm.rank()) - order.begin());
            finisher_ = order[static_cast<std::size_t>(Shape::root(p))];
            local_values_.reserve(local_nodes_.size());
            const int parent_position = Shape::parent(position_, p);
            parent_ = parent_position < 0 ? -1 : order[static_cast<std::size_t>(parent_position)];
            std::size_t total = 0;
            shape_children_ = Shape::children(position_, p);
            for (const auto& c : shape_children_) {
                child ch;
                ch.rank = order[static_cast<std::size_t>(c.position)];
                ch.nodes = index_tree::maximal_nodes(starts[static_cast<std::size_t>(c.subtree_begin)],
                                                         starts[static_cast<std::size_t>(c.subtree_end)], n_);
                ch.at = total;
                total += ch.nodes.size();
                children_.push_back(std::move(ch));
            }
            inbox_.resize(total + 1); // each child's values at its own place (+ 1: never a null buffer)
            posted_.resize(children_.size());
        }

        /// The rank that ends with the root (the one at the shape's root position).
        int finisher() const { return finisher_; }
        /// Whether all_reduce's result goes out through MPI_Bcast (raw T only).
        static constexpr bool broadcast_by_mpi()
        {
            return Broadcast == result_broadcast::mpi && std::is_trivially_copyable_v<T>;
        }

        /// Runs the exchange; same contract as direct::plan::run.
        template <class Kernel, class Op>
        outcome<T> run(const T* local, Op& op, std::optional<failure> failed, net::counters& count,
                       std::exception_ptr& own_error)
        {
            stack_.reset(n_);
            local_values_.clear();
            const int me = comm_.rank();
            if constexpr (net::codec<T>::raw) {
                // Every child's message lands straight in its place, while the kernel runs.
                for (std::size_t k = 0; k < children_.size(); ++k) {
                    posted_[k].post(comm_, children_[k].rank, reinterpret_cast<char*>(inbox_.data() + children_[k].at),
                                    children_[k].nodes.size() * sizeof(T));
                }
            }
            // Own nodes first: they need no message, so they overlap the children's work.
            for (std::size_t i = 0; i < local_nodes_.size() && !failed; ++i) {
                const index_tree::node v = local_nodes_[i];
                guarded(me, failed, own_error, [&] {
                    local_values_.push_back(
                        treefold::detail::local_node<Kernel>(local, v.x - s_, index_tree::cover_size(v, n_), op));
                });
            }
            auto take = [&](std::size_t k) {
                const child& ch = children_[k];
                std::optional<failure> remote;
                std::size_t got = 0;
                if constexpr (net::codec<T>::raw) {
                    remote = posted_[k].wait(got);
                    got /= sizeof(T);
                } else {
                    got = net::recv_values(comm_, ch.rank, inbox_.data() + ch.at, ch.nodes.size(), remote);
                }
                if (!remote && got != ch.nodes.size()) {
                    net::unexpected_size();
                }
                return remote;
            };
            auto combine = [&](int piece, std::optional<failure>& f) {
                guarded(me, f, own_error, [&] {
                    if (piece < 0) {
                        for (std::size_t i = 0; i < local_values_.size(); ++i) {
                            stack_.push(local_nodes_[i], std::move(local_values_[i]), op);
                        }
                    } else {
                        const child& ch = children_[static_cast<std::size_t>(piece)];
                        for (std::size_t j = 0; j < ch.nodes.size(); ++j) {
                            stack_.push(ch.nodes[j], std::move(inbox_[ch.at + j]), op);
                        }
                    }
                });
            };
            net::walk_subtree(shape_children_, position_, false, failed, take, combine);
            if (parent_ >= 0) {
                const auto values = stack_.values();
                net::send_values_or_failure(comm_, parent_, values.data(), values.size(), failed, count);
            }
            return finish(failed, stack_, parent_ < 0 && n_ > 0);
        }

    private:
        struct child {
            int rank = 0;
            std::vector<index_tree::node> nodes; // maximal nodes of the child's subtree range
            std::size_t at = 0;                       // where its values land in inbox_
        };

        boost::mpi::communicator comm_;
        index_tree::index_t n_;
        index_tree::index_t s_ = 0;
        int finisher_ = 0;
        int parent_ = -1;
        std::vector<index_tree::node> local_nodes_;
        std::vector<child> children_; // by position
        std::vector<topology::tree_child> shape_children_;
        int position_ = 0;
        frontier<T> stack_;
        std::vector<T> inbox_;
        std::vector<net::posted_receive> posted_; // by child (raw T)
        std::vector<T> local_values_; // per-call, capacity kept
    };
};

} // namespace treefold::exchange
