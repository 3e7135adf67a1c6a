# cmake -DBUILD_DIR= -DCONFIG= -DTARGET= -DPROGRAM= -DREFERENCE= -P run_batched.cmake
# The test of a sample's rewrite: build its batched executable (clang-vmap runs here;
# a refusal fails this test with the tool's diagnostic), then check it against the
# per-example build's saved outputs.
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --config "${CONFIG}"
                        --target "${TARGET}"
                OUTPUT_VARIABLE build_output ERROR_VARIABLE build_output
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "building ${TARGET} failed:\n${build_output}")
endif()
execute_process(COMMAND "${PROGRAM}" --compare "${REFERENCE}" --budget 0.05
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${TARGET} disagrees with the per-example build (exit ${status})")
endif()
