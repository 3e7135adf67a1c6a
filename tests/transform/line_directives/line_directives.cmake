# cmake -DTOOL=<clang-vmap> -DCOMPILER=<c++> -DINPUT=<file.cpp> -DLINE=<n> -DWORK_DIR=<dir>
#       -P line_directives.cmake -- <compiler flags>
# Note [Line directives]: INPUT is rewritten with -DSCALE=2, then its rewrite compiled
# with -DSCALE=undeclared_scale; the compiler's error must point at INPUT:LINE.
include(${CMAKE_CURRENT_LIST_DIR}/../harness/common.cmake)

file(MAKE_DIRECTORY "${WORK_DIR}")
set(rewritten "${WORK_DIR}/rewritten.cpp")
execute_process(COMMAND "${TOOL}" "${INPUT}" -o "${rewritten}" -- ${compiler_flags} -DSCALE=2
                RESULT_VARIABLE status ERROR_VARIABLE diagnostics)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "clang-vmap exited with status ${status}:\n${diagnostics}")
endif()
execute_process(COMMAND "${COMPILER}" -fsyntax-only ${compiler_flags} -DSCALE=undeclared_scale
                        "${rewritten}"
                RESULT_VARIABLE status ERROR_VARIABLE errors)
if(status EQUAL 0)
  message(FATAL_ERROR "the rewrite compiled with SCALE=undeclared_scale")
endif()
string(FIND "${errors}" "${INPUT}:${LINE}:" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the compiler's error does not name ${INPUT}:${LINE}:\n${errors}")
endif()
string(FIND "${errors}" "rewritten.cpp:" in_rewrite)
if(NOT in_rewrite EQUAL -1)
  message(FATAL_ERROR "the compiler's error names the rewritten file:\n${errors}")
endif()
