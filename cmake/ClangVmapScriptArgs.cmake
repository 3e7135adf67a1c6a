# For scripts run as `cmake -D... -P <script> -- <compiler flags>` (ClangVmapDiff.cmake and
# the test harness): the arguments after `--`, the compiler flags for clang-vmap.
set(compiler_flags "")
set(after_dashes FALSE)
math(EXPR last_argument "${CMAKE_ARGC} - 1")
foreach(index RANGE ${last_argument})
  if(after_dashes)
    list(APPEND compiler_flags "${CMAKE_ARGV${index}}")
  elseif(CMAKE_ARGV${index} STREQUAL "--")
    set(after_dashes TRUE)
  endif()
endforeach()
