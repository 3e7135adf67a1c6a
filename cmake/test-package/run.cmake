# cmake -DBUILD_DIR=<clang-vmap build> -DWORK_DIR=<scratch> -DGENERATOR=<gen>
#       -DCOMPILER=<c++> [-DCUDA_LINK=<-L...;-lcudart;...>] -P run.cmake
#
# Installs the build into a scratch prefix, then, as a user would, builds the project next
# to this script against it with GENERATOR, and checks what issue 5 promises:
# the rewritten program runs; a no-op rebuild reruns nothing; touching a header the source
# includes reruns the tool; the diff is written when asked; a refused loop fails the build
# with the tool's diagnostic.
cmake_minimum_required(VERSION 3.25)

set(marker "clang-vmap: rewriting")  # the COMMENT of clang_vmap_sources()' commands
set(prefix "${WORK_DIR}/prefix")
set(project_copy "${WORK_DIR}/project")  # touched below: never touch the real sources
set(build "${WORK_DIR}/build")

function(run description)
  cmake_parse_arguments(PARSE_ARGV 1 arg "MUST_FAIL" "OUTPUT" "COMMAND")
  execute_process(COMMAND ${arg_COMMAND} RESULT_VARIABLE status
                  OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(arg_MUST_FAIL AND status EQUAL 0)
    message(FATAL_ERROR "${description}: succeeded but must fail\n${output}")
  elseif(NOT arg_MUST_FAIL AND NOT status EQUAL 0)
    message(FATAL_ERROR "${description}: failed (${status})\n${output}")
  endif()
  message(STATUS "${description}: ok")
  if(arg_OUTPUT)
    set(${arg_OUTPUT} "${output}" PARENT_SCOPE)
  endif()
endfunction()

function(expect output fragment should_contain description)
  string(FIND "${output}" "${fragment}" at)
  if(should_contain AND at EQUAL -1)
    message(FATAL_ERROR "${description}: output lacks '${fragment}':\n${output}")
  elseif(NOT should_contain AND NOT at EQUAL -1)
    message(FATAL_ERROR "${description}: output has '${fragment}':\n${output}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(COPY "${CMAKE_CURRENT_LIST_DIR}/" DESTINATION "${project_copy}" PATTERN run.cmake EXCLUDE)

run("install into ${prefix}"
    COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
# Release through CMAKE_BUILD_TYPE, or --config with a multi-config generator.
# A multi-config build has one rewrite per configuration (Note [One rewrite per target]).
set(config_args "")
set(program_dir "${build}")
set(config_subdir "")
if(GENERATOR MATCHES "Multi-Config|Visual Studio|Xcode")
  set(config_args --config Release)
  set(program_dir "${build}/Release")
  set(config_subdir "/Release")
endif()
set(rewrite_dir "${build}/vmap/app${config_subdir}")
file(GLOB library_dir RELATIVE "${prefix}" "${prefix}/lib*/libvmap_runtime.a")
get_filename_component(library_dir "${library_dir}" DIRECTORY)
run("configure with ${GENERATOR}"
    COMMAND "${CMAKE_COMMAND}" -S "${project_copy}" -B "${build}" -G "${GENERATOR}"
            -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}"
            -DCMAKE_CXX_FLAGS=-DTINY_FROM_CXX_FLAGS=1 -DCLANG_VMAP_WRITE_DIFFS=ON
            -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
# Note [The user's sources in compile_commands.json]: what clangd reads lists model.cpp
# itself, with the target's flags and the pragma warning off, besides its rewrite.
if(NOT GENERATOR MATCHES "Multi-Config")
  file(READ "${build}/compile_commands.json" commands)
  string(JSON count LENGTH "${commands}")
  set(as_written "")
  math(EXPR last "${count} - 1")
  foreach(index RANGE ${last})
    string(JSON file GET "${commands}" ${index} file)
    string(JSON command GET "${commands}" ${index} command)
    if(file STREQUAL "${project_copy}/model.cpp")
      set(as_written "${command}")
    endif()
  endforeach()
  if(NOT as_written MATCHES "-Wno-unknown-pragmas" OR NOT as_written MATCHES "TINY_SCALE=2"
     OR NOT as_written MATCHES "-std=")
    message(FATAL_ERROR "compile_commands.json has no entry for model.cpp with the target's "
                        "flags: '${as_written}'")
  endif()
  message(STATUS "compile_commands.json lists model.cpp: ok")
endif()
run("build" COMMAND "${CMAKE_COMMAND}" --build "${build}" ${config_args} OUTPUT output)
set(first_build "${output}")
expect("${output}" "${marker} model.cpp" TRUE "first build")
expect("${output}" "${marker} flags.cpp" TRUE "first build")
run("run the rewritten program" COMMAND "${program_dir}/app" OUTPUT output)
# The NDEBUG loop ran batched: its rewrite is what the compiler compiled.
expect("${output}" "tiny_vmap_user ok (release)" TRUE "program output")
# README's line for compiling a rewrite outside CMake: the installed headers are found with
# -I<prefix>/include alone, and the libraries it names link the program. Not as system
# headers there: they must compile without a warning under -Wall -Wextra. Whatever built the
# rewrites, so once, with Ninja (Note [CI time] in tests/CMakeLists.txt).
if(GENERATOR STREQUAL "Ninja")
  run("compile and link the rewrites by hand"
      COMMAND "${COMPILER}" -std=c++20 -O1 -Wall -Wextra -Werror -fopenmp-simd
              "-I${prefix}/include"
              "-I${project_copy}/include" -DNDEBUG -DTINY_SCALE=2 -DTINY_FROM_CXX_FLAGS=1
              -DTINY_FROM_OPTIONS=2 -DTINY_FROM_SOURCE=3 "${rewrite_dir}/model.vmap.cpp"
              "${rewrite_dir}/flags.vmap.cpp" "${project_copy}/main.cpp" -o "${WORK_DIR}/by_hand"
              "-L${prefix}/${library_dir}" -lvmap_rules -lvmap_runtime -lhwy -lopenblas -lmvec -fopenmp
              ${CUDA_LINK})
  run("run the program compiled by hand" COMMAND "${WORK_DIR}/by_hand" OUTPUT output)
  expect("${output}" "tiny_vmap_user ok (release)" TRUE "the program compiled by hand")
endif()
file(READ "${rewrite_dir}/flags.vmap.cpp" flags_rewrite)
# The text between `#ifdef NDEBUG` and its `#else` (the rewrite's #line directives start
# with '#' too, so no character class can stand for "not the next directive").
string(FIND "${flags_rewrite}" "#ifdef NDEBUG" release_begin)
string(FIND "${flags_rewrite}" "#else" release_end)
set(batched_release -1)
if(release_begin GREATER -1 AND release_end GREATER release_begin)
  math(EXPR release_length "${release_end} - ${release_begin}")
  string(SUBSTRING "${flags_rewrite}" ${release_begin} ${release_length} release_branch)
  string(FIND "${release_branch}" "vb::at(out, i) = vb::at(x, i) * " batched_release)
endif()
if(batched_release EQUAL -1)
  message(FATAL_ERROR "the Release loop of flags.cpp is not the one rewritten:\n${flags_rewrite}")
endif()

# The header's loops: rewritten once (no pragma left), and the program agrees with its
# build as written; the source that is not rewritten ran the batched API too.
expect("${first_build}" "${marker} rows.hpp (header of rows)" TRUE "first build")
file(READ "${build}/vmap/rows${config_subdir}/include0/tiny/rows.hpp" rows_rewrite)
expect("${rows_rewrite}" "#pragma vmap" FALSE "the header's rewrite")
expect("${rows_rewrite}" "vb::Level" TRUE "the header's rewrite")
expect("${rows_rewrite}" "#line 15 \"${project_copy}/include/tiny/rows.hpp\"" TRUE
       "the header's rewrite")
run("run the program with the rewritten header" COMMAND "${program_dir}/rows"
    OUTPUT rows_output)
run("run the program as written" COMMAND "${program_dir}/rows_as_written"
    OUTPUT as_written_output)
expect("${rows_output}" "batched API ops run: some" TRUE "the rewritten program")
expect("${as_written_output}" "batched API ops run: none" TRUE "the program as written")
string(REPLACE "batched API ops run: some" "" rows_values "${rows_output}")
string(REPLACE "batched API ops run: none" "" as_written_values "${as_written_output}")
if(NOT rows_values STREQUAL as_written_values)
  message(FATAL_ERROR "the rewritten header's program prints\n${rows_output}\n"
                      "the program as written prints\n${as_written_output}")
endif()
expect("${rows_values}" "clamp_rows<double>:" TRUE "the program's output")

set(diff "${rewrite_dir}/model.vmap.diff")
file(READ "${diff}" diff_text)
expect("${diff_text}" "+++" TRUE "the rewrite's diff")
expect("${diff_text}" "-#pragma vmap" TRUE "the rewrite's diff")

run("no-op rebuild" COMMAND "${CMAKE_COMMAND}" --build "${build}" ${config_args} OUTPUT output)
expect("${output}" "${marker}" FALSE "no-op rebuild")

# Each configuration has its own rewrite (its flags select its loops): building another
# one and switching back reruns neither the tool nor the compiler.
if(config_subdir)
  run("build Debug" COMMAND "${CMAKE_COMMAND}" --build "${build}" --config Debug --target app
      OUTPUT output)
  expect("${output}" "${marker} flags.cpp" TRUE "the Debug build")
  run("run the Debug program" COMMAND "${build}/Debug/app" OUTPUT output)
  expect("${output}" "tiny_vmap_user ok (debug)" TRUE "the Debug program")
  run("rebuild Release after Debug"
      COMMAND "${CMAKE_COMMAND}" --build "${build}" ${config_args} --target app OUTPUT output)
  expect("${output}" "${marker}" FALSE "Release after Debug")
  expect("${output}" "Building CXX" FALSE "Release after Debug")
endif()

file(TOUCH "${project_copy}/include/tiny/model.hpp")
run("rebuild after touching an included header"
    COMMAND "${CMAKE_COMMAND}" --build "${build}" ${config_args} OUTPUT output)
expect("${output}" "${marker} model.cpp" TRUE "header touched")
expect("${output}" "${marker} rows.hpp" FALSE "header touched")

file(TOUCH "${project_copy}/include/tiny/rows_detail.hpp")
run("rebuild after touching a header the rewritten header includes"
    COMMAND "${CMAKE_COMMAND}" --build "${build}" ${config_args} OUTPUT output)
expect("${output}" "${marker} rows.hpp (header of rows)" TRUE "header touched")

run("build a refused loop" MUST_FAIL
    COMMAND "${CMAKE_COMMAND}" --build "${build}" ${config_args} --target refused
            OUTPUT output)
expect("${output}" "refused.cpp:9:" TRUE "the tool's diagnostic")
expect("${output}" "error:" TRUE "the tool's diagnostic")

run("build a source including a header loop nobody rewrites" MUST_FAIL
    COMMAND "${CMAKE_COMMAND}" --build "${build}" ${config_args} --target unlisted
            OUTPUT output)
expect("${output}" "unlisted.hpp:7:1: error: '#pragma vmap' in an included file is not rewritten"
       TRUE "the tool's diagnostic")

run("build a refused loop with KEEP_GOING and REMARKS"
    COMMAND "${CMAKE_COMMAND}" --build "${build}" ${config_args} --target kept OUTPUT output)
expect("${output}" "refused.cpp:9:7: warning: 'break' in the body of a vmap loop [-Wvmap-refused]"
       TRUE "the tool's warning")
file(READ "${build}/vmap/kept${config_subdir}/refused.vmap.yaml" remarks)
expect("${remarks}" "--- !Missed" TRUE "the remarks file")
expect("${remarks}" "Name:            LoopNotBatched" TRUE "the remarks file")
expect("${remarks}" "Function:        first_rows" TRUE "the remarks file")

# The report needs LLVM's opt-viewer and its Python modules.
execute_process(COMMAND python3 -c "import yaml, pygments" RESULT_VARIABLE no_modules
                OUTPUT_QUIET ERROR_QUIET)
if(EXISTS /usr/lib/llvm-19/share/opt-viewer/opt-viewer.py AND no_modules EQUAL 0)
  run("build the report"
      COMMAND "${CMAKE_COMMAND}" --build "${build}" ${config_args} --target vmap-report)
  file(READ "${build}/vmap-report${config_subdir}/index.html" index)
  expect("${index}" "first_rows" TRUE "the report's index")
else()
  message(STATUS "build the report: skipped (no opt-viewer, or no python3 yaml/pygments)")
endif()
