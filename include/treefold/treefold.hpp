#pragma once
/// Umbrella header: everything a user of treefold needs.

#include "treefold/collective/layout_agreement.hpp"
#include "treefold/collective/tree_shape.hpp"
#include "treefold/exchange/direct.hpp"
#include "treefold/exchange/tree.hpp"
#include "treefold/frontier.hpp"
#include "treefold/kernel/scalar.hpp"
#include "treefold/layout/block_layout.hpp"
#include "treefold/layout/distribution.hpp"
#include "treefold/layout/message_count.hpp"
#include "treefold/reducer.hpp"
#include "treefold/tree/decompose.hpp"
#include "treefold/tree/node.hpp"
