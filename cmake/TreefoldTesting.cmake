# treefold's MPI test kit for CMake, installed with the package (find_package(treefold)
# includes it when Boost.Test is found; doc/guide.md, "Testing with MPI").
#
# treefold_add_mpi_test(<target> [SOURCES <src>...] [LIBS <lib>...] [PROCS <n>...]
#                       [TIMEOUT <s>] [ENVIRONMENT <VAR=value>...] [ARGS <arg>...])
#
# With SOURCES, builds the Boost.Test executable <target> from them, linked with
# treefold::testing (which provides main) and LIBS; without, <target> must already exist.
# Registers one ctest per process count, named <target>.p<n>, run as
#   mpiexec [Open MPI: --oversubscribe --mca mpi_yield_when_idle 1] -n <n> <target> <ARGS>
# with a TIMEOUT, PROCESSORS <n>, LABELS "mpi;p<n>" and ENVIRONMENT. Defaults, settable
# before the call:
#   TREEFOLD_MPI_TEST_PROCS        process counts          (default 1 2 4)
#   TREEFOLD_MPI_TEST_TIMEOUT      seconds per test        (default 300)
#   TREEFOLD_MPI_TEST_ARGS         arguments of every run  (default --log_level=warning --report_level=short)
#   TREEFOLD_MPI_TEST_ENVIRONMENT  VAR=value added to every test
#   TREEFOLD_MPI_TEST_LIBRARIES    linked into every executable built from SOURCES
#   TREEFOLD_MPI_WAIT_PRELOAD      a library every launch not by Open MPI preloads (LD_PRELOAD),
#                                  e.g. one that lets waiting MPICH ranks sleep when oversubscribed
# Open MPI refuses to run as root unless told; the tests say so (OMPI_ALLOW_RUN_AS_ROOT), as
# containers commonly run as root. A rank that fails a BOOST_REQUIRE while the others wait
# ends the job within TREEFOLD_TEST_GRACE seconds (default 5), well inside the timeout.
#
# treefold_add_mpi_test_variant(<target> <variant> [PROCS <n>...] [TIMEOUT <s>]
#                               [ENVIRONMENT <VAR=value>...] [ARGS <arg>...])
# registers the same executable again as <target>.<variant>.p<n>, e.g. with other environment.
include_guard(GLOBAL)

if(NOT MPIEXEC_EXECUTABLE)
  find_package(MPI REQUIRED COMPONENTS CXX)
endif()
if(NOT DEFINED CACHE{TREEFOLD_MPIEXEC_IS_OPEN_MPI})
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _version ERROR_QUIET TIMEOUT 30)
  set(_is_open_mpi OFF)
  if(_version MATCHES "Open MPI|open-mpi|OpenRTE")
    set(_is_open_mpi ON)
  endif()
  set(TREEFOLD_MPIEXEC_IS_OPEN_MPI ${_is_open_mpi} CACHE BOOL "mpiexec is Open MPI's (takes --oversubscribe)")
endif()

# _treefold_mpi_test_defaults(): fills ARG_PROCS, ARG_TIMEOUT and ARG_ARGS in the caller
# from the TREEFOLD_MPI_TEST_* variables, or the built-in defaults, when not given.
macro(_treefold_mpi_test_defaults)
  if(NOT DEFINED ARG_PROCS)
    set(ARG_PROCS 1 2 4)
    if(DEFINED TREEFOLD_MPI_TEST_PROCS)
      set(ARG_PROCS ${TREEFOLD_MPI_TEST_PROCS})
    endif()
  endif()
  if(NOT DEFINED ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
    if(DEFINED TREEFOLD_MPI_TEST_TIMEOUT)
      set(ARG_TIMEOUT ${TREEFOLD_MPI_TEST_TIMEOUT})
    endif()
  endif()
  if(NOT DEFINED ARG_ARGS)
    set(ARG_ARGS --log_level=warning --report_level=short)
    if(DEFINED TREEFOLD_MPI_TEST_ARGS)
      set(ARG_ARGS ${TREEFOLD_MPI_TEST_ARGS})
    endif()
  endif()
endmacro()

function(_treefold_mpi_launcher_flags out)
  set(flags "")
  if(TREEFOLD_MPIEXEC_IS_OPEN_MPI)
    # Oversubscription lets p exceed the cores; yield keeps waiting ranks from spinning.
    set(flags --oversubscribe --mca mpi_yield_when_idle 1)
  endif()
  set(${out} ${flags} PARENT_SCOPE)
endfunction()

# treefold_mpi_launcher(<launcher> <environment>): for tests that start MPI themselves (scripts,
# execute_process): <launcher> the command line as a list (mpiexec and the flags above), and
# <environment> what every MPI run needs in its environment (Open MPI: running as root allowed,
# oversubscription; for MPICH's hydra, which allows both, TREEFOLD_MPI_WAIT_PRELOAD if set).
function(treefold_mpi_launcher launcher environment)
  _treefold_mpi_launcher_flags(flags)
  set(${launcher} ${MPIEXEC_EXECUTABLE} ${flags} PARENT_SCOPE)
  set(env "")
  if(TREEFOLD_MPIEXEC_IS_OPEN_MPI)
    set(env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
  elseif(TREEFOLD_MPI_WAIT_PRELOAD)
    set(env "LD_PRELOAD=${TREEFOLD_MPI_WAIT_PRELOAD}")
  endif()
  set(${environment} "${env}" PARENT_SCOPE)
endfunction()

# _treefold_register_mpi_tests(<target> <test prefix> <timeout> <procs> <environment> <args>)
function(_treefold_register_mpi_tests target prefix timeout procs environment args)
  treefold_mpi_launcher(launcher launch_environment)
  foreach(np IN LISTS procs)
    add_test(NAME ${prefix}.p${np}
      COMMAND ${launcher} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${target}> ${MPIEXEC_POSTFLAGS} ${args})
    set_tests_properties(${prefix}.p${np} PROPERTIES
      TIMEOUT ${timeout}
      PROCESSORS ${np}
      LABELS "mpi;p${np}"
      ENVIRONMENT "${launch_environment};${environment}")
  endforeach()
endfunction()

function(treefold_add_mpi_test target)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBS;PROCS;ENVIRONMENT;ARGS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "treefold_add_mpi_test(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  _treefold_mpi_test_defaults()
  if(ARG_SOURCES)
    add_executable(${target} ${ARG_SOURCES})
    target_link_libraries(${target} PRIVATE treefold::testing ${TREEFOLD_MPI_TEST_LIBRARIES} ${ARG_LIBS})
  elseif(NOT TARGET ${target})
    message(FATAL_ERROR "treefold_add_mpi_test(${target}): no such target and no SOURCES to build it from")
  elseif(ARG_LIBS)
    target_link_libraries(${target} PRIVATE ${ARG_LIBS})
  endif()
  _treefold_register_mpi_tests(${target} ${target} "${ARG_TIMEOUT}" "${ARG_PROCS}"
    "${TREEFOLD_MPI_TEST_ENVIRONMENT};${ARG_ENVIRONMENT}" "${ARG_ARGS}")
endfunction()

function(treefold_add_mpi_test_variant target variant)
  cmake_parse_arguments(ARG "" "TIMEOUT" "PROCS;ENVIRONMENT;ARGS" ${ARGN})
  _treefold_mpi_test_defaults()
  _treefold_register_mpi_tests(${target} ${target}.${variant} "${ARG_TIMEOUT}" "${ARG_PROCS}"
    "${TREEFOLD_MPI_TEST_ENVIRONMENT};${ARG_ENVIRONMENT}" "${ARG_ARGS}")
endfunction()
