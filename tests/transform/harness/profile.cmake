# cmake -DPROGRAM=<a rewritten build> -DINPUT=<its source> -P profile.cmake
# Runs PROGRAM with VMAP_PROFILE=1 and checks the profile it prints at exit: the first row
# of the statement table (the most time) is INPUT's line marked `// the hottest statement`,
# named as <file>.cpp:<line> (Note [Profiled statements] in rules/include/vmap/profile.hpp).
file(READ "${INPUT}" source)
string(FIND "${source}" "// the hottest statement" marker)
if(marker EQUAL -1)
  message(FATAL_ERROR "${INPUT} marks no line `// the hottest statement`")
endif()
string(SUBSTRING "${source}" 0 ${marker} before)
string(REGEX MATCHALL "\n" newlines "${before}")
list(LENGTH newlines line)
math(EXPR line "${line} + 1")
get_filename_component(file "${INPUT}" NAME)

execute_process(COMMAND "${CMAKE_COMMAND}" -E env VMAP_PROFILE=1 "${PROGRAM}"
                OUTPUT_QUIET ERROR_VARIABLE profile RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with status ${status}:\n${profile}")
endif()
string(REPLACE "." "[.]" file_pattern "${file}")
if(NOT profile MATCHES "Batched statement[^\n]*\n${file_pattern}:${line} +[0-9]+ ")
  message(FATAL_ERROR "the profile does not name ${file}:${line} as the hottest batched "
                      "statement:\n${profile}")
endif()
message(STATUS "${file}:${line} heads the profile:\n${profile}")
