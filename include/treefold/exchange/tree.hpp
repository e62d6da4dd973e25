#pragma once
/// The tree exchange: frontiers merged along a rank-ordered reduction tree.
///
/// The schedule is plan::tree's (plan/generators.hpp): positions are the ranks in index
/// order, every subtree covers a contiguous index range, so each child's frontier has nodes
/// known in advance and only values travel; p - 1 messages. The rank at the shape's root
/// position ends with the root of the tree.

#include "treefold/config.hpp"
#include "treefold/exchange/executor.hpp"
#include "treefold/exchange/generated_plan.hpp"
#include "treefold/exchange/list.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/plan/generators.hpp"
#include "treefold/topology/tree_shape.hpp"

#include <boost/mpi/communicator.hpp>

#include <string_view>

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

    /// This rank's schedule (plan::tree): no communication.
    static treefold::plan::rank_schedule schedule(const layout::block_layout& layout, int rank)
    {
        const treefold::plan::shape_functions shape{name, &Shape::root, &Shape::parent, &Shape::children};
        return treefold::plan::tree(layout, rank, shape, Broadcast == result_broadcast::mpi);
    }

    /// The executor running this rank's schedule (see exchange/executor.hpp).
    template <class T>
    using plan = generated_plan<tree, T>;
};

} // namespace treefold::exchange
