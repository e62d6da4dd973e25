#pragma once
/// Lists of exchanges and the lookups over them: the machinery of the exchange registry
/// (exchange/registry.hpp). An exchange's one name is its type's `name`; a list refuses two
/// exchanges of one name at compile time.

#include "treefold/config.hpp"

#include <array>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace treefold::exchange {

/// A compile-time list of exchange policies, each named by its `name`.
template <class... E>
struct exchange_list {
    /// The names, in list order.
    static constexpr std::array<std::string_view, sizeof...(E)> names{std::string_view(E::name)...};
    /// The number of policies listed.
    static constexpr std::size_t size = sizeof...(E);

    /// Whether no two policies share a name.
    static constexpr bool names_unique()
    {
        for (std::size_t i = 0; i < names.size(); ++i) {
            for (std::size_t j = i + 1; j < names.size(); ++j) {
                if (names[i] == names[j]) {
                    return false;
                }
            }
        }
        return true;
    }
    static_assert(names_unique(), "treefold: two exchanges of one list share a name");

    /// Whether X is in the list.
    template <class X>
    static constexpr bool contains = (std::is_same_v<X, E> || ...);
};

namespace detail {
/// `parts` one after another as a character array with static storage, for exchange names
/// built from their policies' names (tree<m_ary<4>> is "mary4", scheduled<G> "schedule_" + G's).
inline constexpr std::array<char, 48> concat_name(std::initializer_list<std::string_view> parts)
{
    std::array<char, 48> out{};
    std::size_t at = 0;
    for (const auto part : parts) {
        for (const char c : part) {
            if (at + 1 < out.size()) {
                out[at++] = c;
            }
        }
    }
    return out;
}

template <class... Lists>
struct join_lists;
template <class... A>
struct join_lists<exchange_list<A...>> {
    using type = exchange_list<A...>;
};
template <class... A, class... B, class... Rest>
struct join_lists<exchange_list<A...>, exchange_list<B...>, Rest...> {
    using type = typename join_lists<exchange_list<A..., B...>, Rest...>::type;
};
} // namespace detail

/// The lists one after another (a registry made of the core's and the components' lists).
template <class... Lists>
using join_t = typename detail::join_lists<Lists...>::type;

/// The names of `List` as one comma-separated line, for help texts and error messages.
template <class List>
std::string name_list()
{
    std::string out;
    for (const auto n : List::names) {
        out += (out.empty() ? "" : ", ") + std::string(n);
    }
    return out;
}

/// Calls `f(std::type_identity<E>{})` for every exchange E of `List`, in list order.
template <class List, class F>
void for_each_exchange(F&& f)
{
    [&]<class... E>(exchange_list<E...>*) { (f(std::type_identity<E>{}), ...); }(static_cast<List*>(nullptr));
}

namespace detail {
template <class F, class First, class... Rest>
auto visit_named(std::string_view name, F& f, exchange_list<First, Rest...>*)
{
    if constexpr (sizeof...(Rest) == 0) {
        return f(std::type_identity<First>{}); // the caller checked that the name is listed
    } else {
        if (name == std::string_view(First::name)) {
            return f(std::type_identity<First>{});
        }
        return visit_named(name, f, static_cast<exchange_list<Rest...>*>(nullptr));
    }
}
} // namespace detail

/// Calls `f(std::type_identity<E>{})` for the exchange E of `List` called `name` and returns
/// what it returns (every call must return the same type). Throws std::invalid_argument naming
/// the list's names for any other name.
template <class List, class F>
auto visit_in(std::string_view name, F&& f)
{
    bool listed = false;
    for (const auto n : List::names) {
        listed = listed || n == name;
    }
    if (!listed) {
        throw std::invalid_argument("treefold: unknown exchange '" + std::string(name) + "' (want one of " +
                                    name_list<List>() + ")");
    }
    return detail::visit_named(name, f, static_cast<List*>(nullptr));
}

} // namespace treefold::exchange
