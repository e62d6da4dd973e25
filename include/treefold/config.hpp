#pragma once
/// Included first by every treefold C++ header: the version macros (treefold/version.hpp,
/// generated from the build's project(VERSION)) and the refusal of -ffast-math. (Contraction,
/// which no macro reveals, is refused when a reducer is planned: front_door/special_results.hpp.)

#include "treefold/version.hpp"

// -ffast-math lets the compiler reassociate, contract and assume away NaN and infinity in
// this translation unit, which holds treefold's inline templates (kernels, tree folds) and the
// user's operator: the result would no longer be the same bits for every number of processes,
// the one thing treefold promises. An error, not a warning, because the failure is silent and
// builds often hide warnings. A TU that must use fast math for its own code and accepts
// irreproducible sums (a benchmark baseline, say) defines TREEFOLD_ALLOW_FAST_MATH first.
#if defined(__FAST_MATH__) && !defined(TREEFOLD_ALLOW_FAST_MATH)
#error "treefold: this translation unit is compiled with -ffast-math (__FAST_MATH__ is defined), which reorders floating-point operations inside treefold's inline code and breaks its same-bits-for-any-p guarantee; compile it without -ffast-math (or define TREEFOLD_ALLOW_FAST_MATH to accept irreproducible results)"
#endif
