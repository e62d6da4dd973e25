#pragma once
/// The two results the tree alone does not fix: a NaN under treefold's own operators (made
/// the one canonical quiet NaN, whatever NaN the hardware left) and the result of N = 0
/// values (the operator's identity, ops::identity).

#include "treefold/config.hpp"
#include "treefold/error.hpp"
#include "treefold/kernel/ops.hpp"

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/operations.hpp>

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace treefold::detail {

/// Floating-point values and the types made of them whose NaNs are canonicalised.
template <class T>
inline constexpr bool nan_carrier = std::is_floating_point_v<T>;
template <class U>
inline constexpr bool nan_carrier<std::complex<U>> = std::is_floating_point_v<U>;
template <class U, std::size_t K>
inline constexpr bool nan_carrier<std::array<U, K>> = std::is_floating_point_v<U>;

/// Replaces every NaN in v by std::numeric_limits<>::quiet_NaN() (0x7ff8000000000000 for
/// double on x86): which NaN the hardware returns depends on the operands' order and on
/// which register lanes met, so only the NaN-ness of a result is the same for every p.
template <class T>
void canonicalize_nan(T& v) noexcept
{
    if constexpr (std::is_floating_point_v<T>) {
        if (v != v) {
            v = std::numeric_limits<T>::quiet_NaN();
        }
    } else if constexpr (ops::detail::complex_type<T>) {
        using U = typename T::value_type;
        U re = v.real();
        U im = v.imag();
        canonicalize_nan(re);
        canonicalize_nan(im);
        v = T(re, im);
    } else {
        for (auto& x : v) {
            canonicalize_nan(x);
        }
    }
}

/// A call's result as treefold returns it: with a canonical NaN under treefold's operators
/// (one compare per value of the final result; other operators' results untouched).
template <class Op, class T>
T settled(T v) noexcept(std::is_nothrow_move_constructible_v<T>)
{
    if constexpr (ops::is_treefold_op<Op> && nan_carrier<T>) {
        canonicalize_nan(v);
    }
    return v;
}

template <class Op, class T>
std::optional<T> settled(std::optional<T> v) noexcept(std::is_nothrow_move_constructible_v<T>)
{
    if constexpr (ops::is_treefold_op<Op> && nan_carrier<T>) {
        if (v) {
            canonicalize_nan(*v);
        }
    }
    return v;
}

/// The checks of a call on N = 0 values whose operator has an identity (no exchange runs):
/// one MPI_Allreduce of three integers, so that a rank that passed values, or roots that
/// differ, throw on every rank (`rooted`: a reduce to `root`, else an all_reduce, root -1).
/// Only N = 0 calls pay it.
void agree_on_empty_call(const boost::mpi::communicator& comm, std::size_t values, int root, bool rooted);

} // namespace treefold::detail
