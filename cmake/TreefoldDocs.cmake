# The Doxygen API reference (doc/Doxyfile.in): target `doc` (not part of `all`), and with the
# tests the ctest doc.api, which fails on any Doxygen warning. Debian package: doxygen.
find_program(TREEFOLD_DOXYGEN doxygen)
# The components' headers (components/<name>/include/treefold/<name>).
set(TREEFOLD_DOXYGEN_COMPONENT_INPUT "")
set(TREEFOLD_DOXYGEN_COMPONENT_ROOTS "")
foreach(component IN LISTS TREEFOLD_COMPONENTS)
  string(APPEND TREEFOLD_DOXYGEN_COMPONENT_INPUT " ${PROJECT_SOURCE_DIR}/components/${component}/include/treefold/${component}")
  string(APPEND TREEFOLD_DOXYGEN_COMPONENT_ROOTS " ${PROJECT_SOURCE_DIR}/components/${component}/include")
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/doc/Doxyfile.in ${PROJECT_BINARY_DIR}/doc/Doxyfile @ONLY)
if(TREEFOLD_DOXYGEN)
  add_custom_target(doc COMMAND ${TREEFOLD_DOXYGEN} ${PROJECT_BINARY_DIR}/doc/Doxyfile
    WORKING_DIRECTORY ${PROJECT_BINARY_DIR}/doc COMMENT "Doxygen: ${PROJECT_BINARY_DIR}/doc/html/index.html")
endif()
if(TREEFOLD_BUILD_TESTS)
  if(TREEFOLD_DOXYGEN)
    add_test(NAME doc.api COMMAND ${TREEFOLD_DOXYGEN} ${PROJECT_BINARY_DIR}/doc/Doxyfile
      WORKING_DIRECTORY ${PROJECT_BINARY_DIR}/doc)
  else()
    add_test(NAME doc.api COMMAND ${CMAKE_COMMAND} -E echo "doxygen not found (scripts/setup installs it)")
    set_tests_properties(doc.api PROPERTIES WILL_FAIL TRUE)
  endif()
  set_tests_properties(doc.api PROPERTIES TIMEOUT 120 LABELS doc)
endif()
