#pragma once
/// The same-bits machinery (test/conformance and the implementation suites that add their own
/// exchanges to it): the list of every exchange, the layout kinds every reducer must handle,
/// the bytes a result is compared by, and one checked reducer run against the oracle's bytes.

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "treefold/all_exchanges.hpp"
#include "treefold/exchange/automatic.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/model/schedules.hpp"
#include "treefold/exchange/native.hpp"
#include "treefold/rma/one_sided.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/kernel/ops.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"
#include "treefold/front_door/special_results.hpp"

#include <boost/serialization/string.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace treefold::testing {

/// A type that is not trivially copyable: travels through Boost.Serialization.
struct word {
    std::string s;
    template <class Archive>
    void serialize(Archive& ar, unsigned /*version*/)
    {
        ar & s;
    }
};

/// Non-associative and non-commutative: the result spells the bracketing.
inline word bracket(const word& x, const word& y) { return word{"(" + x.s + " " + y.s + ")"}; }

/// The operators whose NaN results are compared bit for bit: treefold's own functors, whose
/// NaN result is the canonical quiet NaN (reducer::all_reduce). For any other operator a
/// NaN is a NaN: which one an IEEE operation returns depends on operand order in the machine
/// code, and compilers may swap the operands of a commutative `+` (doc/design.md, "What the
/// guarantee covers").
template <class Op>
inline constexpr bool exact_nan = std::is_same_v<Op, ops::plus> || std::is_same_v<Op, ops::multiplies> ||
                                  std::is_same_v<Op, ops::min> || std::is_same_v<Op, ops::max>;

/// The bytes a result of type T under operator Op is compared by.
template <class Op, class T>
std::vector<unsigned char> result_bytes(const T& v)
{
    if constexpr (std::is_floating_point_v<T>) {
        return bytes_of(!exact_nan<Op> && std::isnan(v) ? std::numeric_limits<T>::quiet_NaN() : v);
    } else if constexpr (std::is_same_v<T, word>) {
        return {v.s.begin(), v.s.end()};
    } else if constexpr (std::is_same_v<T, std::string>) {
        return {v.begin(), v.end()};
    } else {
        return bytes_of(v);
    }
}

/// A list of types, walked by for_each_type.
template <class... Ts>
struct type_list {
    static constexpr std::size_t size = sizeof...(Ts);
};

/// Calls f(std::type_identity<T>{}, i) for the i-th type T of the list.
template <class... Ts, class F>
void for_each_type(type_list<Ts...>, F&& f)
{
    std::size_t i = 0;
    (f(std::type_identity<Ts>{}, i++), ...);
}

template <class List>
struct as_type_list;
template <class... E>
struct as_type_list<exchange::exchange_list<E...>> {
    using type = type_list<E...>;
};

/// Every exchange the library ships: the registry's list (treefold/all_exchanges.hpp).
using all_exchanges = as_type_list<treefold::all_exchanges>::type;

/// The exchanges of type_list L that are not in exchange list Drop, in L's order.
template <class L, class Drop>
struct without;
template <class Drop>
struct without<type_list<>, Drop> {
    using type = type_list<>;
};
template <class E, class... Es, class Drop>
struct without<type_list<E, Es...>, Drop> {
    using rest = typename without<type_list<Es...>, Drop>::type;
    template <class... R>
    static type_list<E, R...> prepend(type_list<R...>);
    using type = std::conditional_t<Drop::template contains<E>, rest, decltype(prepend(rest{}))>;
};

/// One layout of N indices over p ranks, with the name failures report.
struct named_layout {
    const char* name;
    layout::block_layout layout;
};

/// Every layout kind: blocks in rank order, in reversed and random rank order (the random one
/// with empty blocks), everything on one rank (all other blocks empty), and the distribution
/// policies. `seed` picks the random order and the loaded rank; the same on every rank.
inline std::vector<named_layout> layout_kinds(std::uint64_t n, int p, std::uint64_t seed)
{
    const auto pz = static_cast<std::size_t>(p);
    const auto lower = layout::even_lower(n, p);
    std::vector<layout::block> reversed(pz), one_rank(pz);
    std::uint64_t start = 0;
    for (std::size_t i = 0; i < pz; ++i) {
        reversed[pz - 1 - i] = layout::block{start, lower[i]};
        start += lower[i];
    }
    one_rank[seed % pz] = layout::block{0, n};
    return {{"even_lower", layout::block_layout::from_counts(lower)},
            {"even_upper", layout::block_layout::from_counts(layout::even_upper(n, p))},
            {"power_of_two", layout::block_layout::from_counts(layout::power_of_two(n, p))},
            {"aligned:0.5", layout::block_layout::from_counts(layout::aligned(n, p, 0.5))},
            {"reversed", layout::block_layout::from_blocks(std::move(reversed))},
            {"one_rank", layout::block_layout::from_blocks(std::move(one_rank))},
            {"random", random_layout(seed, n, p)}};
}

/// Just the rank-order and the random (permuted, with empty blocks) layouts.
inline std::vector<named_layout> basic_layouts(std::uint64_t n, int p, std::uint64_t seed)
{
    return {{"even_lower", layout::block_layout::from_counts(layout::even_lower(n, p))},
            {"random", random_layout(seed, n, p)}};
}

/// "got X want Y" for doubles (their bit patterns), nothing for other types.
template <class T>
std::string describe(const T& got, const T& want)
{
    if constexpr (std::is_same_v<T, double>) {
        char buf[80];
        std::snprintf(buf, sizeof buf, ": got %016llx want %016llx", static_cast<unsigned long long>(bits_of(got)),
                      static_cast<unsigned long long>(bits_of(want)));
        return buf;
    } else {
        return "";
    }
}

/// A kernel policy's name for messages (kernel::scalar has none).
template <class K>
const char* kernel_name()
{
    if constexpr (requires { K::name; }) {
        return K::name;
    } else {
        return "scalar";
    }
}

/// reducer<T, Op, K, E> on `sub` over layout `l`: all_reduce twice (the same plan) and
/// reduce to `root`; every result must have the bytes of `want` (the oracle's result, or
/// published reference bits). Returns the bytes of the first all_reduce.
template <class E, class K, class T, class Op>
std::vector<unsigned char> check_reducer(const boost::mpi::communicator& sub, const std::vector<T>& xs,
                                         const named_layout& l, Op op, const T& want, int root, const std::string& what)
{
    reducer<T, Op, K, E> r(sub, l.layout, op);
    const auto b = l.layout.block_of(sub.rank());
    const std::span<const T> local(xs.data() + (b.count > 0 ? b.start : 0), b.count);
    const auto want_bytes = result_bytes<Op>(treefold::detail::settled<Op>(want)); // treefold's NaN: the canonical one
    const T first = r.all_reduce(local);
    const T again = r.all_reduce(local);
    const std::optional<T> at_root = r.reduce(local, root);
    const bool all_ok = result_bytes<Op>(first) == want_bytes && result_bytes<Op>(again) == want_bytes;
    const bool root_ok = sub.rank() == root ? at_root && result_bytes<Op>(*at_root) == want_bytes : !at_root;
    if (!all_ok || !root_ok) {
        BOOST_ERROR(what << ", exchange " << E::name << ", kernel " << kernel_name<K>() << ", layout " << l.name << ": N = "
                         << xs.size() << " p = " << sub.size() << (all_ok ? " reduce to " : " all_reduce, root ")
                         << root << ", differs from the oracle on rank " << sub.rank() << describe(first, want));
    }
    return result_bytes<Op>(first);
}

/// The input errors of a doubles reducer R (accurate_reducer, binned_reducer), as by
/// treefold::reducer: a wrong local size on rank 0 throws std::invalid_argument on every rank,
/// the right sizes then sum, and N = 0 gives +0.0 (values passed then throw everywhere).
template <class R>
void check_input_errors(const boost::mpi::communicator& w)
{
    R r(w, std::uint64_t{10});
    std::vector<double> local(r.local_count() + (w.rank() == 0 ? 1 : 0), 1.0);
    BOOST_CHECK_THROW(r.all_reduce(local), std::invalid_argument);
    std::vector<double> right(r.local_count(), 1.0);
    BOOST_CHECK_EQUAL(r.all_reduce(right), 10.0);
    R z(w, std::uint64_t{0});
    BOOST_CHECK_EQUAL(bits_of(z.all_reduce({})), 0u);
    BOOST_CHECK(z.reduce({}, 0).has_value() == (w.rank() == 0));
    const double one = 1.0;
    BOOST_CHECK_THROW(z.all_reduce(w.rank() == 0 ? std::span<const double>(&one, 1) : std::span<const double>()),
                      local_size_error);
}

} // namespace treefold::testing
