// The launcher check of launcher.hpp. Which implementation this file was compiled against
// comes from mpi.h (Open MPI defines OMPI_MAJOR_VERSION, the MPICH family MPICH_VERSION);
// which launcher started the process, from the variables each launcher sets:
//  - Open MPI's mpirun: OMPI_COMM_WORLD_SIZE and OMPI_COMM_WORLD_RANK (with PMIX_RANK);
//  - MPICH's Hydra (mpiexec.hydra, Debian's mpiexec.mpich): HYDI_CONTROL_FD, with PMI_RANK,
//    PMI_SIZE and PMI_FD (or PMI_PORT).
// Only launcher-specific markers count: PMI_* alone also comes from Slurm's srun (PMI-2),
// PMIX_* from any PMIx server, and an implementation may be built to take either.
#include "launcher.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

// The launcher of the MPI this library was built against (src/net/sources.cmake); a bare
// name where the build did not say.
#ifndef TREEFOLD_BUILD_MPIEXEC
#define TREEFOLD_BUILD_MPIEXEC "mpiexec"
#endif

namespace treefold::net {

namespace {

bool set(const char* name)
{
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0';
}

/// What the check needs to know about one launcher.
struct launcher {
    const char* implementation; ///< whose launcher, as the message names it
    const char* marker;         ///< the variable that proves it started the process
    const char* rank_variable;  ///< where it puts the process's rank
    const char* size_variable;  ///< where it puts the number of processes it started
};

[[maybe_unused]] constexpr launcher open_mpi{"Open MPI's mpirun", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
                                                     "OMPI_COMM_WORLD_SIZE"};
[[maybe_unused]] constexpr launcher hydra{"MPICH's Hydra mpiexec", "HYDI_CONTROL_FD", "PMI_RANK", "PMI_SIZE"};

#if defined(MPICH_VERSION)
/// An MPICH built with PMIx support runs under any PMIx launcher, Open MPI's included: its
/// configure line (in the library version string, which MPI allows before MPI_Init) says so.
bool speaks_pmix()
{
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) {
        return false;
    }
    return std::string_view(text, static_cast<std::size_t>(length)).find("pmix") != std::string_view::npos;
}
#endif

/// The other implementation's launcher when it started this process, else nullptr.
const launcher* foreign_launcher()
{
#if defined(OMPI_MAJOR_VERSION)
    // Hydra's own marker, and none of Open MPI's (an Open MPI job started inside a Hydra
    // job inherits HYDI_CONTROL_FD, but then its own mpirun sets its variables too).
    if (set(hydra.marker) && !set(open_mpi.marker) && !set("PMIX_RANK")) {
        return &hydra;
    }
#elif defined(MPICH_VERSION)
    // Open MPI's marker, and nothing MPICH's process-management interface could start from.
    if (set(open_mpi.marker) && !set("PMI_RANK") && !set("PMI_FD") && !set("PMI_PORT") && !speaks_pmix()) {
        return &open_mpi;
    }
#endif
    return nullptr;
}

constexpr const char* built_against =
#if defined(OMPI_MAJOR_VERSION)
    "Open MPI";
#elif defined(MPICH_VERSION)
    "MPICH";
#else
    "";
#endif

constexpr const char* other_implementation =
#if defined(OMPI_MAJOR_VERSION)
    "MPICH";
#else
    "Open MPI";
#endif

} // namespace

std::string launcher_mismatch()
{
    const char* check = std::getenv("TREEFOLD_LAUNCHER_CHECK");
    if (check != nullptr && std::string_view(check) == "0") {
        return {};
    }
    const launcher* other = foreign_launcher();
    if (other == nullptr) {
        return {};
    }
    return std::string("treefold: this program was built against ") + built_against + " but was started by " +
           other->implementation + " (" + other->marker + " is set), so each process would run alone as p = 1; " +
           "start it with " + built_against + "'s launcher (" + TREEFOLD_BUILD_MPIEXEC + "), or rebuild it against " +
           other_implementation + " (TREEFOLD_LAUNCHER_CHECK=0 skips this check)";
}

namespace {

/// The launcher check as the environment stood when the program started: MPI_Init (the
/// program's own, for a program that calls it) may set variables of its own implementation.
struct at_start {
    std::string why;   // launcher_mismatch()
    long launched = 0; // the other launcher's process count
};

const at_start& verdict_at_start()
{
    static const at_start v = [] {
        at_start out{launcher_mismatch(), 0};
        if (!out.why.empty()) {
            const char* size = std::getenv(foreign_launcher()->size_variable);
            out.launched = size != nullptr ? std::strtol(size, nullptr, 10) : 0;
        }
        return out;
    }();
    return v;
}

// Taken while the program's static objects are made, before main() can call MPI_Init.
[[maybe_unused]] const bool taken_at_start = (verdict_at_start(), true);

} // namespace

const char* started_alone()
{
    static const std::string why = [] {
        const at_start& v = verdict_at_start();
        int world = 0;
        if (v.why.empty() || v.launched <= 1 || MPI_Comm_size(MPI_COMM_WORLD, &world) != MPI_SUCCESS || world != 1) {
            return std::string(); // no other launcher, or a one-process job, which runs as it should
        }
        return v.why + " [MPI_COMM_WORLD holds 1 process, the launcher started " + std::to_string(v.launched) + "]";
    }();
    return why.empty() ? nullptr : why.c_str();
}

bool report_launcher_mismatch()
{
    const std::string why = launcher_mismatch();
    if (why.empty()) {
        return false;
    }
    const launcher* other = foreign_launcher();
    const char* rank = std::getenv(other->rank_variable);
    if (rank == nullptr || std::string_view(rank) == "0") {
        std::fprintf(stderr, "%s\n", why.c_str());
        std::fflush(stderr);
    }
    return true;
}

} // namespace treefold::net
