#pragma once
// The headers most suites include, precompiled once for every Boost.Test suite built from
// SOURCES (test/CMakeLists.txt): parsing them was about a fifth of a suite's compile time.
// Only what the suites include anyway; each suite still includes what it uses.
#include <boost/mpi.hpp>
#include <boost/test/unit_test.hpp>

#include "support/cases.hpp"
#include "support/mpi_test.hpp"
#include "support/oracle.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>
