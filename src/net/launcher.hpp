#pragma once
// Whether this process was started by the launcher of the MPI implementation treefold was
// compiled against (src/net/launcher.cpp). A program built against MPICH and started by Open
// MPI's mpirun (or the other way round) does not crash: every process initialises MPI as a
// singleton, so `mpirun -n 4` runs four programs of p = 1 that each print a result. The
// check runs before MPI_Init, from the tool's main (src/cli/main.cpp) and the test kit's
// (src/testing/mpi_main.cpp). Private to the project: not installed.

#include <string>

namespace treefold::net {

/// The one-line reason when the launcher's variables in the environment belong to the other
/// implementation (Open MPI's OMPI_COMM_WORLD_SIZE in a program built against MPICH; MPICH's
/// Hydra's HYDI_CONTROL_FD in one built against Open MPI), naming the cause and the fix; empty
/// when they do not, when no launcher started the process, or when TREEFOLD_LAUNCHER_CHECK=0.
/// Calls no MPI function but MPI_Get_library_version, which MPI allows before MPI_Init.
std::string launcher_mismatch();

/// After MPI_Init (by treefold or by the program itself): launcher_mismatch() where it holds
/// and the launcher started more processes than MPI_COMM_WORLD holds (each process ran MPI_Init
/// alone, p = 1), else nullptr. Worked out once per process; the text lives as long as it.
const char* started_alone();

/// launcher_mismatch(), printed to stderr by the process its launcher numbers 0 (every process
/// finds the same reason, and each would otherwise print it): true when the process must not
/// initialise MPI and should exit with a non-zero code.
bool report_launcher_mismatch();

} // namespace treefold::net
