# The launcher check (launcher.cpp) names the launcher of the MPI the library is built against
# in its message: the mpiexec FindMPI chose (MPIEXEC_EXECUTABLE).
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/launcher.cpp PROPERTIES
  COMPILE_DEFINITIONS "TREEFOLD_BUILD_MPIEXEC=\"${MPIEXEC_EXECUTABLE}\"")
