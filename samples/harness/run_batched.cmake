# cmake -DBUILD_DIR= -DCONFIG= -DTARGET= -DPROGRAM= -DREFERENCE= [-DARGS=] -P run_batched.cmake
# The test of a sample's rewrite: build its batched executable (clang-vmap runs here;
# a refusal fails this test with the tool's diagnostic), then check it against the
# per-example build's saved outputs. ARGS: more driver flags, space separated
# (--device cuda); a run without the device it asks for is skipped (the driver's exit
# status 77, its "skipped:" line is what CTest's SKIP_REGULAR_EXPRESSION matches).
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --config "${CONFIG}"
                        --target "${TARGET}"
                OUTPUT_VARIABLE build_output ERROR_VARIABLE build_output
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "building ${TARGET} failed:\n${build_output}")
endif()
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND "${PROGRAM}" --compare "${REFERENCE}" --budget 0.05 ${args}
                RESULT_VARIABLE status)
if(status EQUAL 77)
  return()
endif()
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${TARGET} ${ARGS}: disagrees with the per-example build or failed "
                      "(exit ${status})")
endif()
