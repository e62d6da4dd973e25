# Installs the treefold build in BUILD_DIR into WORK_DIR/prefix, then builds and runs the
# consumer project twice: once through find_package(treefold CONFIG) from that prefix and
# once through add_subdirectory of the source tree. Then C, Fortran and Python programs use
# the installed prefix with the commands README.md documents and nothing else: mpicc / mpifort
# with pkg-config, and PYTHONPATH at the installed module (LIBDIR, PYTHON, PYTHON_DIR, FORTRAN
# say what was built).
file(REMOVE_RECURSE ${WORK_DIR})
get_filename_component(TREEFOLD_SOURCE ${CONSUMER_SOURCE}/../.. ABSOLUTE)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}")
  endif()
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
foreach(mode installed subdirectory)
  set(args -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/${mode} -DCMAKE_CXX_COMPILER=${CXX}
           -DCMAKE_BUILD_TYPE=Release)
  if(mode STREQUAL "installed")
    list(APPEND args -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
  else()
    list(APPEND args -DTREEFOLD_SOURCE_DIR=${TREEFOLD_SOURCE})
  endif()
  run(${CMAKE_COMMAND} ${args})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/${mode} --target consumer -j 2)
  run(mpiexec -n 2 --oversubscribe ${WORK_DIR}/${mode}/consumer)
endforeach()

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
run(mpicc -std=c99 ${CONSUMER_SOURCE}/allreduce.c -o ${WORK_DIR}/c-consumer ${c_flags})
run(mpiexec -n 2 --oversubscribe ${WORK_DIR}/c-consumer)
if(FORTRAN)
  pkg_flags(treefold-fortran f_flags)
  run(mpifort ${CONSUMER_SOURCE}/allreduce.f90 -o ${WORK_DIR}/fortran-consumer ${f_flags})
  run(mpiexec -n 2 --oversubscribe ${WORK_DIR}/fortran-consumer)
endif()
if(PYTHON)
  run(${PYTHON} -c "import numpy as np, sys\nv = 1.0 / np.arange(1, 1001)\nopen(sys.argv[1], 'wb').write(np.uint64(1000).tobytes() + v.tobytes())"
      ${WORK_DIR}/values.binpsllh)
  set(ENV{PYTHONPATH} ${prefix}/${PYTHON_DIR})
  run(mpiexec -n 2 --oversubscribe ${PYTHON} ${TREEFOLD_SOURCE}/examples/allreduce.py ${WORK_DIR}/values.binpsllh)
endif()
