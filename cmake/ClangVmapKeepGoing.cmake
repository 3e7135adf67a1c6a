# cmake -DOUTPUT=<rewritten file> -P ClangVmapKeepGoing.cmake -- <clang-vmap> <arguments>
# Runs clang-vmap with --keep-going for clang_vmap_sources(... KEEP_GOING): the tool then
# writes OUTPUT with the refused loops left as written and, as `make -k` does, still exits
# with status 1; here that is a success when OUTPUT was written (the tool's warnings are
# in the build log), a failure otherwise.
include(${CMAKE_CURRENT_LIST_DIR}/ClangVmapScriptArgs.cmake)

file(REMOVE "${OUTPUT}")
execute_process(COMMAND ${compiler_flags} RESULT_VARIABLE status)
if(NOT status EQUAL 0 AND NOT (status EQUAL 1 AND EXISTS "${OUTPUT}"))
  message(FATAL_ERROR "clang-vmap failed (exit status ${status}): ${OUTPUT} not written")
endif()
