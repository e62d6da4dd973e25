#pragma once
/// The one list of element types and operators with precompiled kernels. Everything that
/// enumerates them is generated from it: ops::builtin_kind and ops::is_builtin_type
/// (ops.hpp), the extern declarations (simd.hpp), the per-architecture instantiations
/// (src/kernel/arch_instantiate.hpp) and the dispatch accessors (src/kernel/dispatch.cpp).
///
/// TREEFOLD_KERNEL_TYPES(X, A) expands X(A, T) for every element type T;
/// TREEFOLD_KERNEL_OPS(X, A) expands X(A, OP) for every operator ops::OP (which is also the
/// enumerator ops::builtin_kind::OP), in that order; A is passed through (it may be empty).
/// TREEFOLD_KERNEL_EACH(X) expands X(T, OP) for every pair.

#include "treefold/config.hpp"

#include <cstdint>

#define TREEFOLD_KERNEL_TYPES(X, A) X(A, double) X(A, float) X(A, std::int32_t) X(A, std::int64_t)
#define TREEFOLD_KERNEL_OPS(X, A) X(A, plus) X(A, multiplies) X(A, min) X(A, max)
#define TREEFOLD_KERNEL_EACH(X) TREEFOLD_KERNEL_TYPES(TREEFOLD_KERNEL_OPS, X)
