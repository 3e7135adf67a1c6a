# cmake -DTOOL=<clang-vmap> -DOPT_VIEWER=<opt-viewer.py> -DINPUT=<sample.cpp> -DWORK_DIR=<dir>
#       -P opt_viewer.cmake -- <compiler flags>
# INPUT's remarks (--remarks-file) rendered by LLVM's opt-viewer: the source page must name
# each batched loop with its batch levels, the index the function holding it. Prints
# "opt-viewer cannot run" (the test's skip expression) when opt-viewer, python3 or its
# Python modules (yaml, pygments) are missing.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

find_program(PYTHON3 python3)
if(NOT PYTHON3 OR NOT EXISTS "${OPT_VIEWER}")
  message(STATUS "opt-viewer cannot run: python3 or ${OPT_VIEWER} missing")
  return()
endif()
execute_process(COMMAND "${PYTHON3}" -c "import yaml, pygments"
                RESULT_VARIABLE status ERROR_VARIABLE why)
if(NOT status EQUAL 0)
  message(STATUS "opt-viewer cannot run: ${why}(apt-get install python3-yaml python3-pygments)")
  return()
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
execute_process(COMMAND "${TOOL}" "${INPUT}" -o "${WORK_DIR}/rewritten.cpp"
                        "--remarks-file=${WORK_DIR}/remarks.yaml" -- ${compiler_flags}
                RESULT_VARIABLE status ERROR_VARIABLE diagnostics)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "clang-vmap exited with status ${status} on ${INPUT}:\n${diagnostics}")
endif()
execute_process(COMMAND "${PYTHON3}" "${OPT_VIEWER}" -o "${WORK_DIR}/html" -j 1
                        "${WORK_DIR}/remarks.yaml"
                RESULT_VARIABLE status OUTPUT_VARIABLE said ERROR_VARIABLE said)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "opt-viewer failed (${status}):\n${said}")
endif()

file(READ "${WORK_DIR}/html/index.html" index)
if(NOT index MATCHES "pairwise_distance")
  message(FATAL_ERROR "index.html does not name the function pairwise_distance:\n${index}")
endif()
file(GLOB pages "${WORK_DIR}/html/*pairwise_distance.cpp.html")
if(NOT pages)
  message(FATAL_ERROR "opt-viewer wrote no page for the source")
endif()
file(READ "${pages}" page)
foreach(expected "loop batched: 2 batch levels \\(" ">i from 0 to x\\.size\\(0\\)</a>"
                 ">j from 0 to y\\.size\\(0\\)</a>" "#pragma")
  if(NOT page MATCHES "${expected}")
    message(FATAL_ERROR "the page of ${INPUT} does not match '${expected}':\n${page}")
  endif()
endforeach()
