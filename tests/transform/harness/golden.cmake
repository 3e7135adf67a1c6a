# cmake -DTOOL=<clang-vmap> -DFILECHECK=<FileCheck> -DINPUT=<file.cpp> -DWORK_DIR=<dir>
#       [-DTOOL_OPTIONS=<options>] -P golden.cmake -- <compiler flags>
# INPUT must be rewritten (exit status 0) into text matching its CHECK lines.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

execute_process(COMMAND "${TOOL}" "${INPUT}" ${TOOL_OPTIONS} -- ${compiler_flags}
                OUTPUT_VARIABLE rewritten ERROR_VARIABLE diagnostics
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "clang-vmap exited with status ${status} on ${INPUT}:\n${diagnostics}")
endif()
if(diagnostics)
  message(STATUS "clang-vmap said:\n${diagnostics}")
endif()
get_filename_component(name "${INPUT}" NAME_WE)
file_check("${rewritten}" "${WORK_DIR}/${name}.rewritten.cpp")
