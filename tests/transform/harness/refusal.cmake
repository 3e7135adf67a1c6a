# cmake -DTOOL=<clang-vmap> -DFILECHECK=<FileCheck> -DINPUT=<file.cpp> -DWORK_DIR=<dir>
#       -P refusal.cmake -- <compiler flags>
# INPUT must be refused: exit status 1, nothing on stdout, the diagnostics on stderr
# matching its CHECK lines, no -o output, the file untouched by -i. Works on a copy in
# WORK_DIR with the same name, so diagnostics name <name>.cpp.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

get_filename_component(name "${INPUT}" NAME)
set(copy "${WORK_DIR}/${name}")
file(MAKE_DIRECTORY "${WORK_DIR}")
configure_file("${INPUT}" "${copy}" COPYONLY)
file(SHA256 "${INPUT}" original_hash)

function(expect_refused)
  execute_process(COMMAND "${TOOL}" ${ARGN} -- ${compiler_flags}
                  OUTPUT_VARIABLE output ERROR_VARIABLE diagnostics
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 1)
    message(FATAL_ERROR "clang-vmap ${ARGN}: exit status ${status}, expected 1:\n"
                        "${diagnostics}")
  endif()
  if(NOT output STREQUAL "")
    message(FATAL_ERROR "clang-vmap ${ARGN} wrote to stdout for a refused file:\n${output}")
  endif()
  set(diagnostics "${diagnostics}" PARENT_SCOPE)
endfunction()

expect_refused("${copy}")
file_check("${diagnostics}" "${WORK_DIR}/${name}.stderr")

set(output "${WORK_DIR}/${name}.out.cpp")
file(REMOVE "${output}")
expect_refused("${copy}" -o "${output}")
if(EXISTS "${output}")
  message(FATAL_ERROR "clang-vmap -o wrote ${output} for a refused file")
endif()

expect_refused("${copy}" -i)
file(SHA256 "${copy}" hash_after)
if(NOT hash_after STREQUAL original_hash)
  message(FATAL_ERROR "clang-vmap -i changed the refused file ${copy}")
endif()
