# cmake -DTOOL=<clang-vmap> -DINPUT=<file.cpp> -DOUTPUT=<file.vmap.cpp>
#       -P keep_going.cmake -- <compiler flags>
# For the --surface random programs (many independent loops): the tool runs with
# --keep-going, so that a loop it refuses (it may: SPEC lets it refuse what it cannot prove)
# stays as written, with a warning at its line, and the other loops are still rewritten and
# compared. Exit status 0, or 1 with OUTPUT written, loops left as written at lines of INPUT
# and INPUT untouched, is a rewrite to compare; anything else (a crash, a refusal at no
# line, a changed input) makes OUTPUT the failing stub of rewrite_or_stub.cmake.
include(${CMAKE_CURRENT_LIST_DIR}/../harness/common.cmake)

file(SHA256 "${INPUT}" before)
file(REMOVE "${OUTPUT}")
execute_process(COMMAND "${TOOL}" --keep-going "${INPUT}" -o "${OUTPUT}" -- ${compiler_flags}
                ERROR_VARIABLE diagnostics RESULT_VARIABLE status)
if(status EQUAL 0)
  return()
endif()
file(SHA256 "${INPUT}" after)
get_filename_component(input_name "${INPUT}" NAME)
string(REGEX MATCHALL "${input_name}:[0-9]+:[0-9]+: note: loop left as written"
       refusals "${diagnostics}")
if(status EQUAL 1 AND refusals AND EXISTS "${OUTPUT}" AND before STREQUAL after)
  list(LENGTH refusals count)
  message(STATUS "clang-vmap left ${count} loops of ${INPUT} as written")
  return()
endif()
message(WARNING "clang-vmap failed on ${INPUT} (exit status ${status}):\n${diagnostics}")
write_failing_stub("${OUTPUT}" "clang-vmap exited with status ${status} on ${INPUT}, input changed: ${before} ${after}:
${diagnostics}")
