# Cost of the audit's checks (call numbers, empty-block reports, failure agreement, the
# checking level): build/.../perf/audit_bench (doc/performance.md, "Audit checks").
add_executable(audit_bench ${CMAKE_CURRENT_LIST_DIR}/audit_bench.cpp)
target_link_libraries(audit_bench PRIVATE treefold_all)
treefold_target_flags(audit_bench)
