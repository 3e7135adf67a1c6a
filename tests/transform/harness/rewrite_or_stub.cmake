# cmake -DTOOL=<clang-vmap> -DINPUT=<file.cpp> -DOUTPUT=<file.vmap.cpp>
#       [-DTOOL_OPTIONS=<options>] -P rewrite_or_stub.cmake -- <compiler flags>
# Rewrites INPUT into OUTPUT; if the tool refuses, OUTPUT becomes a program that prints
# the tool's diagnostics and fails, so the differential test fails and the build goes on
# (Note [Differential programs are built by a test] in ../CMakeLists.txt).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

execute_process(COMMAND "${TOOL}" "${INPUT}" -o "${OUTPUT}" ${TOOL_OPTIONS} -- ${compiler_flags}
                ERROR_VARIABLE diagnostics RESULT_VARIABLE status)
if(status EQUAL 0)
  return()
endif()
message(WARNING "clang-vmap refused ${INPUT} (exit status ${status}):\n${diagnostics}")
write_failing_stub("${OUTPUT}" "clang-vmap exited with status ${status} on ${INPUT}:
${diagnostics}")
