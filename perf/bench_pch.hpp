#pragma once
// The headers most benchmarks include, precompiled once for those that share its flags
// (perf/CMakeLists.txt). Each benchmark still includes what it uses.
#include <boost/mpi.hpp>
#include <boost/program_options.hpp>

#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
