# Installs the treefold build in BUILD_DIR into WORK_DIR/prefix, then builds and runs the
# consumer project twice: once through find_package(treefold CONFIG) from that prefix and
# once through add_subdirectory of the source tree. The installed MPI test kit is checked
# from the prefix (kit.cmake): its ctests pass (the failing ones fail as they must), and a
# BOOST_REQUIRE failing on one rank ends the run quickly with that rank's message.
# Then C, Fortran and Python programs use
# the installed prefix with the commands README.md documents and nothing else: mpicc / mpifort
# with pkg-config, and PYTHONPATH at the installed module (LIBDIR, PYTHON, PYTHON_DIR, FORTRAN
# say what was built). MPIRUN (the launcher and its flags, as words), MPI_HINTS (FindMPI's
# hints, as words), MPICC and MPIFORT: the build's MPI, which every consumer uses.
file(REMOVE_RECURSE ${WORK_DIR})
separate_arguments(mpirun UNIX_COMMAND "${MPIRUN}")
separate_arguments(mpi_hints UNIX_COMMAND "${MPI_HINTS}")
if(NOT MPICC)
  set(MPICC mpicc)
endif()
if(NOT MPIFORT)
  set(MPIFORT mpifort)
endif()
get_filename_component(TREEFOLD_SOURCE ${CONSUMER_SOURCE}/../.. ABSOLUTE)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}")
  endif()
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
foreach(mode installed subdirectory)
  # -O0 without -g: these builds check that a user's project finds, builds and links
  # treefold (the subdirectory one compiles the core from source); the suite checks the bits.
  set(args -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/${mode} -DCMAKE_CXX_COMPILER=${CXX}
           -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 ${mpi_hints})
  if(mode STREQUAL "installed")
    list(APPEND args -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
  else()
    # A unity build (CMAKE_UNITY_BUILD), as a user may configure one: treefold must build so
    # as a subproject, and it compiled in 41 and 37 s of CPU against 52 and 45 (user + system,
    # two alternating pairs of this build of consumer and consumer_collective; the kernels stay apart).
    list(APPEND args -DTREEFOLD_SOURCE_DIR=${TREEFOLD_SOURCE} -DCMAKE_UNITY_BUILD=ON)
  endif()
  run(${CMAKE_COMMAND} ${args})
  # The front doors' program once, from the install: through add_subdirectory it would compile
  # the same headers against the same target.
  set(programs consumer consumer_collective)
  if(mode STREQUAL "installed")
    list(APPEND programs consumer_front_door)
  endif()
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/${mode} --target ${programs} -j 2)
  foreach(program IN LISTS programs)
    set(np 3)
    if(program STREQUAL "consumer")
      set(np 2)
    endif()
    run(${mpirun} -n ${np} ${WORK_DIR}/${mode}/${program})
  endforeach()
endforeach()

# The test kit, from the install: ctest runs the passing tests; the two that must fail are
# registered (listed below) and run once each by run_failing_case, which reads their output
# (running them under ctest too would wait out the REQUIRE case's grace period twice).
set(build ${WORK_DIR}/installed)
run(${CMAKE_COMMAND} --build ${build} --target consumer_kit -j 2)
run(${CMAKE_CTEST_COMMAND} --test-dir ${build} --output-on-failure -R consumer_kit -E _fails)
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${build} -N -R "consumer_kit\\..*_fails" OUTPUT_VARIABLE listed)
if(NOT listed MATCHES "consumer_kit\\.check_fails\\.p2" OR NOT listed MATCHES "consumer_kit\\.require_fails\\.p2")
  message(FATAL_ERROR "the kit's variants are not registered as the suite's kit.cmake asks:\n${listed}")
endif()
function(run_failing_case test_case out_var seconds_var)
  string(TIMESTAMP t0 "%s")
  execute_process(COMMAND ${mpirun} -n 2 ${build}/consumer_kit --run_test=${test_case}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 90)
  string(TIMESTAMP t1 "%s")
  math(EXPR seconds "${t1} - ${t0}")
  if(rc EQUAL 0)
    message(FATAL_ERROR "${test_case} should fail but exited 0:\n${out}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${seconds_var} ${seconds} PARENT_SCOPE)
endfunction()
run_failing_case(check_fails_on_one_rank out seconds)
if(NOT out MATCHES "deliberate CHECK failure on rank 1" OR
   NOT out MATCHES "test case \"check_fails_on_one_rank\" failed on rank\\(s\\) 1 of 2" OR
   NOT out MATCHES "1 of 2 rank\\(s\\) failed")
  message(FATAL_ERROR "a CHECK failing on one rank was not reported as expected:\n${out}")
endif()
run_failing_case(require_fails_on_one_rank out seconds)
if(NOT out MATCHES "deliberate REQUIRE failure on rank 1" OR
   NOT out MATCHES "rank 1 of 2: test case \"require_fails_on_one_rank\" was aborted")
  message(FATAL_ERROR "a REQUIRE failing on one rank was not reported as expected:\n${out}")
endif()
# The grace period is 5 s; starting MPI twice takes a few more. The test's timeout is 120 s.
if(seconds GREATER 40)
  message(FATAL_ERROR "a REQUIRE failing on one rank took ${seconds} s to end the run:\n${out}")
endif()
message(STATUS "kit: a REQUIRE failing on one rank ended the run in ${seconds} s")
set(prefix ${WORK_DIR}/prefix)
# (No semicolons in commands: run() takes its arguments as a CMake list.)
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
function(pkg_flags package out)
  execute_process(COMMAND pkg-config --cflags --libs ${package} OUTPUT_VARIABLE flags RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config ${package} failed")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(${out} ${flags} PARENT_SCOPE)
endfunction()
pkg_flags(treefold c_flags)
run(${MPICC} -std=c99 -Wall -Wextra -Wpedantic -Werror ${CONSUMER_SOURCE}/allreduce.c -o ${WORK_DIR}/c-consumer
    ${c_flags})
run(${mpirun} -n 2 ${WORK_DIR}/c-consumer)
set(languages C)
if(FORTRAN)
  pkg_flags(treefold-fortran f_flags)
  run(${MPIFORT} -Wall -Werror ${CONSUMER_SOURCE}/allreduce.f90 -o ${WORK_DIR}/fortran-consumer ${f_flags})
  run(${mpirun} -n 2 ${WORK_DIR}/fortran-consumer)
  list(APPEND languages Fortran)
endif()
# project(app C) and project(app Fortran): find_package(treefold) without a C++ compiler.
foreach(language IN LISTS languages)
  run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE}/one_language -B ${WORK_DIR}/only-${language}
      -DLANGUAGE=${language} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release ${mpi_hints})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/only-${language})
  run(${mpirun} -n 2 ${WORK_DIR}/only-${language}/app)
endforeach()
if(PYTHON)
  run(${PYTHON} -c "import numpy as np, sys\nv = 1.0 / np.arange(1, 1001)\nopen(sys.argv[1], 'wb').write(np.uint64(1000).tobytes() + v.tobytes())"
      ${WORK_DIR}/values.binpsllh)
  set(ENV{PYTHONPATH} ${prefix}/${PYTHON_DIR})
  run(${mpirun} -n 2 ${PYTHON} ${TREEFOLD_SOURCE}/examples/allreduce.py ${WORK_DIR}/values.binpsllh)
endif()
