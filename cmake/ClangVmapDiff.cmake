# cmake -DTOOL=<clang-vmap> -DSOURCE=<file> -DOUTPUT=<diff> -P ClangVmapDiff.cmake -- <flags>
# Writes the unified diff of clang-vmap's rewrite of SOURCE to OUTPUT (a build step of
# clang_vmap_sources() when CLANG_VMAP_WRITE_DIFFS is ON: add_custom_command cannot
# redirect output portably).
set(compiler_flags "")
set(after_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(index RANGE ${last})
  if(after_separator)
    list(APPEND compiler_flags "${CMAKE_ARGV${index}}")
  elseif(CMAKE_ARGV${index} STREQUAL "--")
    set(after_separator TRUE)
  endif()
endforeach()

execute_process(COMMAND "${TOOL}" "${SOURCE}" --diff -- ${compiler_flags}
                OUTPUT_FILE "${OUTPUT}"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE "${OUTPUT}")
  message(FATAL_ERROR "clang-vmap --diff failed on ${SOURCE} (exit status ${status})")
endif()
