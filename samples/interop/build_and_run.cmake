# cmake -DBUILD_DIR= -DCONFIG= -DTARGET= -DCOMMAND=<a ;-list> -P build_and_run.cmake
# Builds TARGET (clang-vmap rewrites its loop here; a refusal fails the test with the tool's
# diagnostic), then runs COMMAND.
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --config "${CONFIG}"
                        --target "${TARGET}"
                OUTPUT_VARIABLE build_output ERROR_VARIABLE build_output
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "building ${TARGET} failed:\n${build_output}")
endif()
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${COMMAND}: failed (exit ${status})")
endif()
