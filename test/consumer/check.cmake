# Installs the treefold build in BUILD_DIR into WORK_DIR/prefix, then builds and runs the
# consumer project twice: once through find_package(treefold CONFIG) from that prefix and
# once through add_subdirectory of the source tree.
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
