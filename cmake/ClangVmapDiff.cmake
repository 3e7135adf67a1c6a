# cmake -DTOOL=<clang-vmap> -DSOURCE=<file> -DOUTPUT=<diff> -P ClangVmapDiff.cmake -- <flags>
# Writes the unified diff of clang-vmap's rewrite of SOURCE to OUTPUT (a build step of
# clang_vmap_sources() when CLANG_VMAP_WRITE_DIFFS is ON: add_custom_command cannot
# redirect output portably).
include(${CMAKE_CURRENT_LIST_DIR}/ClangVmapScriptArgs.cmake)

execute_process(COMMAND "${TOOL}" "${SOURCE}" --diff -- ${compiler_flags}
                OUTPUT_FILE "${OUTPUT}"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE "${OUTPUT}")
  message(FATAL_ERROR "clang-vmap --diff failed on ${SOURCE} (exit status ${status})")
endif()
