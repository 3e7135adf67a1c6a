# cmake -DTOOL=<clang-vmap> -DINPUT=<file.cpp> -DOUTPUT=<file.vmap.cpp>
#       -P rewrite_or_refusal.cmake -- <compiler flags>
# For programs the tool may rightly refuse (the --hostile random programs): a rewrite goes to
# OUTPUT, and the differential test compares it with the program as written. A refusal must
# be exit status 1 with an error at a line of INPUT and INPUT untouched; then OUTPUT is INPUT
# itself (the pragma ignored), so the differential test compares the program with itself and
# passes. Anything else (a crash, a refusal at no line, a changed input) makes OUTPUT the
# failing stub of rewrite_or_stub.cmake.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

file(SHA256 "${INPUT}" before)
execute_process(COMMAND "${TOOL}" "${INPUT}" -o "${OUTPUT}" -- ${compiler_flags}
                ERROR_VARIABLE diagnostics RESULT_VARIABLE status)
if(status EQUAL 0)
  return()
endif()
file(SHA256 "${INPUT}" after)
get_filename_component(input_name "${INPUT}" NAME)
string(REGEX MATCH "${input_name}:[0-9]+:[0-9]+: error: " at_a_line "${diagnostics}")
if(status EQUAL 1 AND at_a_line AND before STREQUAL after)
  message(STATUS "clang-vmap refused ${INPUT} at a line: compared with itself")
  configure_file("${INPUT}" "${OUTPUT}" COPYONLY)
  return()
endif()
message(WARNING "clang-vmap failed on ${INPUT} (exit status ${status}):\n${diagnostics}")
write_failing_stub("${OUTPUT}" "clang-vmap exited with status ${status} on ${INPUT}, input changed: ${before} ${after}:
${diagnostics}")
