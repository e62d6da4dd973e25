#pragma once
/// exchange::automatic's process-wide state, compiled into the library (src/exchange/
/// automatic_choice.cpp): the environment override, the calibration file and the cache of
/// choices. Not API.

#include "treefold/config.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace treefold::exchange::detail {

/// What a calibrated choice is kept under: (p, ceil(log2 N), sizeof(T), 0 for serialised T).
struct choice_key {
    int p = 0;
    unsigned level = 0;
    std::size_t bytes = 0;
};

/// The candidate forced on this rank (an index into `names`): the one a forced_choice_scope of
/// this thread names, else the one TREEFOLD_EXCHANGE names; -1 when neither is set, -2 when the
/// name is no candidate.
int forced_candidate(std::span<const std::string_view> names);

/// While alive, the plans of exchange::automatic built on this thread take `name` as if
/// TREEFOLD_EXCHANGE said so (the C API's per-context exchange option); an empty name forces
/// nothing. Scopes do not nest.
class forced_choice_scope {
public:
    explicit forced_choice_scope(std::string_view name);
    ~forced_choice_scope();
    forced_choice_scope(const forced_choice_scope&) = delete;
    forced_choice_scope& operator=(const forced_choice_scope&) = delete;
};

/// The MPI library this process runs, as calibration files name it: the first line of
/// MPI_Get_library_version with its blanks collapsed.
std::string mpi_library();

/// Adds the choices of the file TREEFOLD_CALIBRATION names (written by `treefold calibrate`:
/// lines "p level bytes exchange", '#' starts a comment line, and a line "mpi LIBRARY" naming
/// the MPI library it was timed under) to the cache, once per path; they replace choices
/// calibrated before. False when the file cannot be read, is not a regular file, holds a line
/// not of that form or naming no candidate, or names another MPI library than mpi_library().
bool load_calibration_file(std::span<const std::string_view> names);

/// The cached choice for `key` on this rank, or -1.
int cached_choice(const choice_key& key);
/// Caches `choice` for `key`.
void remember_choice(const choice_key& key, int choice);
/// Forgets every cached choice (`treefold calibrate` measures afresh).
void forget_calibration();

} // namespace treefold::exchange::detail
