#pragma once
// The C API's context options (treefold_context_create_info): read from an MPI_Info on each
// rank, checked locally; the ranks then agree on the outcome with the other arguments.

#include "errors.hpp"

#include <mpi.h>

#include <cstddef>
#include <string>

namespace treefold::capi::detail {

/// What treefold_context_create_info's MPI_Info asks for.
struct context_options {
    /// "exchange": one of exchange::automatic's candidates, or empty (automatic, or what
    /// TREEFOLD_EXCHANGE forces).
    std::string exchange;
    /// "threads": this rank's threads (reducer::set_threads).
    std::size_t threads = 1;
    /// "kernel": the local kernel (chosen_kernel).
    kernel_choice kernel = kernel_choice::best;
};

/// Reads `info` (MPI_INFO_NULL: no options). A key or value it does not accept is recorded
/// in `check` (MPI_ERR_INFO_KEY, MPI_ERR_INFO_VALUE, or MPI_ERR_ARG for threads with a
/// user-created MPI_Op without MPI_THREAD_MULTIPLE) unless `check` already holds an error.
/// An architecture kernel must run on this CPU and suit check.type and check.op. Local.
context_options read_options(MPI_Info info, local_check& check);

} // namespace treefold::capi::detail
