# cmake -DBUILD_DIR=<build tree> -DTARGET=<target> -DCONFIG=<config> -DEXPECT=pass|fail
#       [-DPATTERN=<regex>] -P check_build.cmake
# Builds TARGET in BUILD_DIR. EXPECT=pass: the build must succeed. EXPECT=fail: the build
# must fail and its output must match PATTERN (the diagnostic naming the reason).
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET} --config ${CONFIG}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(EXPECT STREQUAL "pass")
  if(NOT rc EQUAL 0)
    message("${out}")
    message(FATAL_ERROR "${TARGET} should compile but its build failed (${rc})")
  endif()
  message(STATUS "${TARGET} compiles")
elseif(EXPECT STREQUAL "fail")
  if(rc EQUAL 0)
    message("${out}")
    message(FATAL_ERROR "${TARGET} should not compile but its build succeeded")
  endif()
  if(NOT out MATCHES "${PATTERN}")
    message("${out}")
    message(FATAL_ERROR "${TARGET} failed to compile, but not with a diagnostic matching: ${PATTERN}")
  endif()
  message(STATUS "${TARGET} refused as intended: ${CMAKE_MATCH_0}")
else()
  message(FATAL_ERROR "EXPECT must be pass or fail, not '${EXPECT}'")
endif()
