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
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>

// The refusal of floating-point contraction in the translation unit that plans a reduction
// with a user operator. Compilers predefine no macro for -ffp-contract (GCC's __FP_FAST_FMA
// says only that the target has FMA), so config.hpp cannot refuse it with an #error as it
// does -ffast-math; a probe compiled in the user's translation unit finds it at run time.
namespace treefold::detail {

// Internal linkage on purpose: every translation unit keeps its own copy of the probe,
// compiled with that unit's flags (an inline function with external linkage would be
// whichever unit's copy the linker kept).
namespace {

/// True when this translation unit's compiler fuses a * b + c into one rounding (an FMA):
/// -ffp-contract=fast (also g++'s default for C++, -std=c++20 and -std=gnu++20 alike) or
/// clang++'s default -ffp-contract=on, on a target with FMA (-mfma, -march=native on a
/// recent x86), with optimisation on.
/// Fused, (1 + 2^-30)(1 - 2^-30) - 1 is -2^-60; rounded after the product it is 0. The
/// inputs are volatile so that the compiler cannot evaluate it at compile time.
inline bool fp_contraction_probe() noexcept
{
    volatile double va = 1.0 + 0x1p-30;
    volatile double vb = 1.0 - 0x1p-30;
    volatile double vc = -1.0;
    const double a = va;
    const double b = vb;
    const double c = vc;
    return a * b + c != 0.0;
}

/// The probe, run once per process in this translation unit.
inline bool fp_contracts() noexcept
{
    static const bool fused = fp_contraction_probe();
    return fused;
}

/// Throws std::logic_error (on every rank: each runs the same probe, before any message)
/// when this translation unit contracts and Op may compute in floating point: an operator
/// outside treefold's own on a non-integral element type. treefold's operators do one
/// operation per call, which contraction cannot change. TREEFOLD_ALLOW_FP_CONTRACT, defined
/// before the first treefold header, turns the check off.
template <class Op, class T>
void refuse_fp_contraction()
{
#ifndef TREEFOLD_ALLOW_FP_CONTRACT
    if constexpr (!ops::is_treefold_op<Op> && !std::is_integral_v<T>) {
        if (fp_contracts()) {
            throw std::logic_error(
                "treefold: this translation unit is compiled with floating-point contraction (a * b + c fused "
                "into one FMA: -ffp-contract=fast, g++'s default, or clang++'s default -ffp-contract=on, "
                "on a target with FMA such as -march=native or -mfma), so the operator's results "
                "would depend on the number of processes; compile it with -ffp-contract=off as the last "
                "-ffp-contract flag (treefold's CMake target and pkg-config flags add it), or define "
                "TREEFOLD_ALLOW_FP_CONTRACT to accept that");
        }
    }
#endif
}

} // namespace
} // namespace treefold::detail

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
