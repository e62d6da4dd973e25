# Messages per reducer call from the plan alone (no mpirun): build/.../perf/message_counts --sweep
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
add_executable(message_counts ${CMAKE_CURRENT_LIST_DIR}/message_counts.cpp)
target_link_libraries(message_counts PRIVATE treefold_all Boost::program_options)
treefold_target_flags(message_counts)
