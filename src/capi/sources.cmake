# The C API's element types, element=T: the one list from which the per-type translation units
# (typed.cpp.in) and the X-macro list the C API dispatches on (elements.hpp.in) are generated.
set(TREEFOLD_CAPI_ELEMENT_TYPES "f64=double" "f32=float" "i32=std::int32_t" "i64=std::int64_t"
    "c64=std::complex<double>")
set(TREEFOLD_CAPI_X_LIST "")
foreach(entry IN LISTS TREEFOLD_CAPI_ELEMENT_TYPES)
  string(REPLACE "=" ";" pair "${entry}")
  list(GET pair 0 element)
  list(GET pair 1 TREEFOLD_CAPI_TYPE)
  string(APPEND TREEFOLD_CAPI_X_LIST " X(${element}, ${TREEFOLD_CAPI_TYPE})")
  configure_file(${CMAKE_CURRENT_LIST_DIR}/typed.cpp.in ${PROJECT_BINARY_DIR}/src/capi/typed_${element}.cpp @ONLY)
  target_sources(treefold PRIVATE ${PROJECT_BINARY_DIR}/src/capi/typed_${element}.cpp)
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/elements.hpp.in ${PROJECT_BINARY_DIR}/src/capi/elements.hpp @ONLY)
# The generated files include context.hpp from the source folder; the sources find elements.hpp here.
target_include_directories(treefold PRIVATE ${CMAKE_CURRENT_LIST_DIR} ${PROJECT_BINARY_DIR}/src/capi)
