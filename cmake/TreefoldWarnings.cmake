# treefold_target_flags(<target>): warnings and the floating-point rules every
# treefold target (library, tests, tools, benchmarks) is built with.
function(treefold_target_flags target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -ffp-contract=off)
  if(TREEFOLD_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
