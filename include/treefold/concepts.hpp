#pragma once
/// The contracts of treefold's template parameters as C++20 concepts.
///
/// The class and function templates that take these parameters (treefold::reducer,
/// treefold::row_reducer, exchange::tree, exchange::scheduled, collective::tree_reduce,
/// collective::tree_all_reduce) are constrained with them, so a type that does not fit
/// is refused at the template's name with the concept's name in the diagnostic, instead of
/// failing deep inside an instantiation. They only check; they change no behaviour.
///
/// This header needs no MPI: the two Boost.MPI types it names (the communicator an exchange
/// plan is built from, the archive serialised values travel in) are only declared.

#include "treefold/config.hpp"
#include "treefold/layout/block_layout.hpp"

#include <boost/serialization/level.hpp>
#include <boost/serialization/serialization.hpp>
#include <boost/serialization/string.hpp>

#include <concepts>
#include <cstdint>
#include <ranges>
#include <string>
#include <type_traits>

namespace boost::mpi {
class communicator;
class packed_oarchive;
} // namespace boost::mpi

namespace treefold {

/// A binary operator on T: callable on an lvalue Op as `T op(const T& left, const T& right)`
/// (functors, function pointers, lambdas with captured state). Nothing else is required:
/// neither associativity nor commutativity.
template <class Op, class T>
concept reduction_operator = std::invocable<Op&, const T&, const T&> &&
                             std::convertible_to<std::invoke_result_t<Op&, const T&, const T&>, T>;

namespace detail::serialization_probe {

/// Declared with the same form as Boost.Serialization's catch-all
/// `boost::serialization::serialize(Archive&, T&, const unsigned int)` (which exists for every
/// T and fails only inside its body). An unqualified call that finds no more specialised
/// overload is ambiguous between the two, hence ill-formed; one that finds a type's own free
/// serialize (by ADL in T's namespace, or in boost::serialization, which the version_type
/// argument adds to ADL as Boost itself does) picks that one.
template <class Archive, class T>
void serialize(Archive& ar, T& t, const unsigned int version);

template <class T, class Archive>
concept free_serialize = requires(Archive& ar, T& t, boost::serialization::version_type v) { serialize(ar, t, v); };

/// Finds a member named `serialize` whatever its access (a private serialize befriending
/// boost::serialization::access is the usual form): naming it through a class derived from
/// T and from `fallback` is ambiguous exactly when T has one.
struct fallback {
    void serialize();
};
template <class T>
struct derived : T, fallback {};

template <class T, class Archive>
concept member_serialize =
    (std::is_class_v<T> && !std::is_final_v<T> && !requires { &derived<T>::serialize; }) ||
    requires(T& t, Archive& ar, unsigned int v) { t.serialize(ar, v); };

} // namespace detail::serialization_probe

/// A type Boost.Serialization can write: a primitive of its own (arithmetic types,
/// std::string), a class with a member `serialize(Archive&, unsigned)` (any access), or one
/// with a free `serialize(Archive&, T&, unsigned)` found by ADL or in boost::serialization
/// (the header declaring that overload, e.g. <boost/serialization/vector.hpp>, must be
/// included first). Element types of a std::vector etc. are not checked.
template <class T>
concept boost_serializable =
    boost::serialization::implementation_level<T>::value == boost::serialization::primitive_type ||
    detail::serialization_probe::member_serialize<T, boost::mpi::packed_oarchive> ||
    detail::serialization_probe::free_serialize<T, boost::mpi::packed_oarchive>;

/// The transport's customization point: a type that travels in an encoding of its own,
/// neither as raw bytes nor through Boost.Serialization, specializes this as std::true_type
/// beside its specialization of net::codec (treefold::row does: its values live in a
/// row_reducer's arena, see row_reducer.hpp).
template <class T>
struct has_own_codec : std::false_type {};

/// An element type that can travel between ranks: trivially copyable types go as raw bytes,
/// types with their own codec (has_own_codec) through it, any other type through
/// Boost.Serialization (boost_serializable).
template <class T>
concept transportable = std::is_trivially_copyable_v<T> || has_own_codec<T>::value || boost_serializable<T>;

/// A local kernel for elements T and operator Op: `static T K::reduce_node(const T* first,
/// std::uint64_t len, Op& op)` returns the node covering [first, first + len) (see
/// kernel/dispatch.hpp for the contract; kernel::scalar, kernel::simd<Arch>, kernel::best).
template <class K, class T, class Op>
concept kernel_policy = requires(const T* first, std::uint64_t len, Op& op) {
    { K::reduce_node(first, len, op) } -> std::same_as<T>;
};

/// A local kernel in offset form: `static T K::reduce_at(std::uint64_t offset, std::uint64_t
/// len, Op& op)` returns the node over the local elements [offset, offset + len) of the call's
/// input, which the kernel reaches through `op`. Reducers whose input is not an array of T
/// use it (doubles summed into a wider value, rows of k values): the exchanges call it with
/// the node's offset in the local block, so no array of T stands in for the input.
template <class K, class T, class Op>
concept offset_kernel = requires(std::uint64_t offset, std::uint64_t len, Op& op) {
    { K::reduce_at(offset, len, op) } -> std::same_as<T>;
};

/// A dot kernel for elements T (kernel/dot.hpp: kernel::dot_scalar, kernel::dot_simd<Arch>,
/// kernel::dot_best): `static T K::dot<T>(const T* x, const T* y, std::uint64_t len)`, the
/// tree node over the products x[i] * y[i], and `static T K::sum<T>(const T* x, std::uint64_t
/// len)`, the node over x[i], both with the bits of kernel::scalar under ops::plus over the
/// stored leaves.
template <class K, class T>
concept dot_kernel_policy = requires(const T* x, const T* y, std::uint64_t len) {
    { K::template dot<T>(x, y, len) } -> std::same_as<T>;
    { K::template sum<T>(x, len) } -> std::same_as<T>;
};

namespace detail {
/// The node over the local elements [offset, offset + len): the kernel's offset form where it
/// has one, else its pointer form on `local` (the exchanges' one way to call a kernel).
template <class Kernel, class T, class Op>
T local_node(const T* local, std::uint64_t offset, std::uint64_t len, Op& op)
{
    if constexpr (offset_kernel<Kernel, T, Op>) {
        return Kernel::reduce_at(offset, len, op);
    } else {
        return Kernel::reduce_node(local + offset, len, op);
    }
}
} // namespace detail

/// An exchange strategy for frontiers of T: `E::name` (a C string) and a nested
/// `template <class> class plan` built collectively from (communicator, layout), whose
/// `finisher()` is the rank holding the result (exchange::direct, exchange::tree<Shape>,
/// exchange::scheduled<Generator>, rma::one_sided).
template <class E, class T>
concept exchange_policy =
    requires {
        { E::name } -> std::convertible_to<const char*>;
        typename E::template plan<T>;
    } &&
    std::constructible_from<typename E::template plan<T>, const boost::mpi::communicator&,
                            const layout::block_layout&> &&
    requires(const typename E::template plan<T>& plan) {
        { plan.finisher() } -> std::same_as<int>;
    };

/// A range of tree children: elements with `position`, `subtree_begin` and `subtree_end`.
template <class R>
concept tree_child_range =
    std::ranges::input_range<R> && requires(const std::ranges::range_value_t<R>& c) {
        { c.position } -> std::convertible_to<int>;
        { c.subtree_begin } -> std::convertible_to<int>;
        { c.subtree_end } -> std::convertible_to<int>;
    };

/// A rank-ordered reduction tree over positions 0..p-1 (binomial, fibonacci, binary,
/// inorder; see tree_shape.hpp for the meaning): `name`, a constant `fold_from_right`,
/// `root(p)`, `parent(position, p)` (-1 at the root), `children(position, p)` (a
/// tree_child_range in position order) and `height(p)`, all static.
template <class S>
concept tree_shape = requires(int position, int p) {
    { S::name } -> std::convertible_to<const char*>;
    typename std::bool_constant<S::fold_from_right>;
    { S::root(p) } -> std::same_as<int>;
    { S::parent(position, p) } -> std::same_as<int>;
    { S::children(position, p) } -> tree_child_range;
    { S::height(p) } -> std::same_as<int>;
};

/// What an allreduce schedule offers (the library's schedule class; see schedule.hpp): a
/// copyable value that checks itself against p, counts its rounds and messages and prints
/// its text form.
template <class S>
concept allreduce_schedule = std::copy_constructible<S> && requires(const S& s, int p) {
    { s.fits(p) } -> std::same_as<bool>;
    s.check(p);
    { s.rounds() } -> std::convertible_to<int>;
    { s.messages(p) } -> std::convertible_to<std::uint64_t>;
    { s.to_string() } -> std::convertible_to<std::string>;
};

/// A schedule generator for exchange::scheduled: `name` (a C string) and `static make(int p)`
/// returning the allreduce schedule to run on p ranks (exchange::schedules::recursive_doubling,
/// heuristic, best).
template <class G>
concept schedule_generator = requires(int p) {
    { G::name } -> std::convertible_to<const char*>;
    { G::make(p) } -> allreduce_schedule;
};

/// A schedule generator that also plans for a message size: `static make(int p,
/// std::uint64_t bytes)`; exchange::scheduled passes the bytes of its frontier messages
/// (model::schedules::best_sized).
template <class G>
concept sized_schedule_generator = schedule_generator<G> && requires(int p, std::uint64_t bytes) {
    { G::make(p, bytes) } -> allreduce_schedule;
};

} // namespace treefold
