# Which MPI implementation a build uses, and which one a library was built against: the
# checks that keep a Boost.MPI of one MPI out of a build with another (both MPI libraries in
# one program crash inside MPI_Init). Installed with the package, which runs the same checks
# for its consumers. "MPICH" stands for the MPICH family (MPICH, Intel MPI, MVAPICH, Cray
# MPICH: one ABI, integer handles); "Open MPI" for Open MPI.
include_guard(GLOBAL)

# treefold_mpi_of_headers(<out> <include dir>...): the implementation whose mpi.h is first found
# in the directories ("Open MPI" or "MPICH"), or "" when neither macro is there.
function(treefold_mpi_of_headers out)
  set(kind "")
  foreach(dir IN LISTS ARGN)
    if(EXISTS "${dir}/mpi.h")
      file(STRINGS "${dir}/mpi.h" lines REGEX "^#[ \t]*define[ \t]+(OMPI_MAJOR_VERSION|MPICH_VERSION)[ \t]")
      if(lines MATCHES "OMPI_MAJOR_VERSION")
        set(kind "Open MPI")
      elseif(lines MATCHES "MPICH_VERSION")
        set(kind "MPICH")
      endif()
      break()
    endif()
  endforeach()
  set(${out} "${kind}" PARENT_SCOPE)
endfunction()

# treefold_mpi_of_library(<out> <library file>): the implementation a compiled library calls or
# is, read from its symbols: Open MPI's handles are symbols (ompi_mpi_comm_world,
# ompi_mpi_double, ...), the MPICH family's are integer constants, so a library that calls or
# defines MPI_ functions and names no ompi_ symbol is of the MPICH family. "" when it names no
# MPI function or nm is missing.
function(treefold_mpi_of_library out file)
  set(kind "")
  set(nm "${CMAKE_NM}")
  if(NOT nm)
    find_program(TREEFOLD_NM nm)
    set(nm "${TREEFOLD_NM}")
  endif()
  if(nm AND EXISTS "${file}")
    set(dynamic "")
    if(file MATCHES "\\.so(\\.[0-9.]+)?$")
      set(dynamic -D)
    endif()
    execute_process(COMMAND "${nm}" ${dynamic} "${file}" OUTPUT_VARIABLE symbols ERROR_QUIET)
    if(symbols MATCHES " [TUDB] ompi_")
      set(kind "Open MPI")
    elseif(symbols MATCHES " [TU] P?MPI_[A-Z][a-z_]+")
      set(kind "MPICH")
    endif()
  endif()
  set(${out} "${kind}" PARENT_SCOPE)
endfunction()

# treefold_check_boost_mpi(<Boost.MPI library file> <MPI implementation> <how it was chosen>):
# a fatal error naming both implementations and the fix when the library was built against
# another MPI than the one chosen.
function(treefold_check_boost_mpi file mpi chosen_by)
  treefold_mpi_of_library(boost_mpi "${file}")
  if(boost_mpi AND mpi AND NOT boost_mpi STREQUAL mpi)
    message(FATAL_ERROR
      "treefold: Boost.MPI (${file}) was built against ${boost_mpi}, but the MPI chosen is ${mpi} "
      "(${chosen_by}). A program with both MPI libraries crashes in MPI_Init. Fix: use a Boost.MPI "
      "built against ${mpi} (-DTREEFOLD_BOOST_MPI=<its libboost_mpi file>; for MPICH on Debian, "
      "scripts/setup --mpich builds one), or choose ${boost_mpi} (-DMPI_CXX_COMPILER=<its mpicxx>).")
  endif()
endfunction()

# treefold_mpi_of_libraries(<out> <library>...): the first implementation found among the
# library files (FindMPI's MPI_<lang>_LIBRARIES), "" when none is recognised.
function(treefold_mpi_of_libraries out)
  set(kind "")
  foreach(lib IN LISTS ARGN)
    if(NOT kind AND EXISTS "${lib}")
      treefold_mpi_of_library(kind "${lib}")
    endif()
  endforeach()
  set(${out} "${kind}" PARENT_SCOPE)
endfunction()
