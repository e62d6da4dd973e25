#pragma once
// The includes every file of this folder shares, control.cpp included: if one of them
// breaks, the control fails instead of every refusal passing for the wrong reason.
#include "treefold/collective/tree_reduce.hpp"
#include "treefold/exchange/schedule.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/kernel/dispatch.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/reducer.hpp"
#include "treefold/row_reducer.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>
