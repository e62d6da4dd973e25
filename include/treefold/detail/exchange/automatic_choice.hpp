#pragma once
/// exchange::automatic's process-wide state, compiled into the library (src/exchange/
/// automatic_choice.cpp): the environment override, the calibration file and the cache of
/// choices. Not API.

#include "treefold/config.hpp"

#include <cstddef>
#include <span>
#include <string_view>

namespace treefold::exchange::detail {

/// What a calibrated choice is kept under: (p, ceil(log2 N), sizeof(T), 0 for serialised T).
struct choice_key {
    int p = 0;
    unsigned level = 0;
    std::size_t bytes = 0;
};

/// The candidate TREEFOLD_EXCHANGE names on this rank (an index into `names`): -1 when unset,
/// -2 when it names no candidate.
int forced_candidate(std::span<const std::string_view> names);

/// Adds the choices of the file TREEFOLD_CALIBRATION names (written by `treefold calibrate`:
/// lines "p level bytes exchange", '#' starts a comment line) to the cache, once per path;
/// they replace choices calibrated before. False when the file cannot be read, is not a
/// regular file, or holds a line not of that form or naming no candidate.
bool load_calibration_file(std::span<const std::string_view> names);

/// The cached choice for `key` on this rank, or -1.
int cached_choice(const choice_key& key);
/// Caches `choice` for `key`.
void remember_choice(const choice_key& key, int choice);
/// Forgets every cached choice (`treefold calibrate` measures afresh).
void forget_calibration();

} // namespace treefold::exchange::detail
