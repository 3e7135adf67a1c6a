# cmake -DTOOL=<clang-vmap> -DSOURCE=<file> -DOUTPUT=<diff> [-DKEEP_GOING=ON]
#       [-DREWRITTEN_ELSEWHERE=<header>|<header>...] -P ClangVmapDiff.cmake -- <flags>
# Writes the unified diff of clang-vmap's rewrite of SOURCE to OUTPUT (a build step of
# clang_vmap_sources() when CLANG_VMAP_WRITE_DIFFS is ON: add_custom_command cannot
# redirect output portably). KEEP_GOING: the diff of the loops rewritten, the refused ones
# left as written (the tool's exit status 1 then means no failure).
include(${CMAKE_CURRENT_LIST_DIR}/ClangVmapScriptArgs.cmake)

set(keep_going "")
if(KEEP_GOING)
  set(keep_going --keep-going)
endif()
# The headers clang_vmap_sources() rewrites on their own (Note [Rewritten headers]).
string(REPLACE "|" ";" elsewhere "${REWRITTEN_ELSEWHERE}")
list(TRANSFORM elsewhere PREPEND "--rewritten-elsewhere=")
execute_process(COMMAND "${TOOL}" "${SOURCE}" --diff ${keep_going} ${elsewhere}
                        -- ${compiler_flags}
                OUTPUT_FILE "${OUTPUT}"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0 AND NOT (KEEP_GOING AND status EQUAL 1))
  file(REMOVE "${OUTPUT}")
  message(FATAL_ERROR "clang-vmap --diff failed on ${SOURCE} (exit status ${status})")
endif()
