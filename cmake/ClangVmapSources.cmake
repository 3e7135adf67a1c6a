# clang_vmap_sources(<target> <source-or-header>... [KEEP_GOING] [REMARKS] [CHECK])
#
# Compiles each <source> of <target> in the form clang-vmap rewrites it to: at build time
# the tool turns every `#pragma vmap` loop into batched calls and writes
# <bindir>/vmap/<target>/<source>.vmap.cpp, which replaces <source> in the target.
#
# A header (.h .hh .hpp .hxx .inl .ipp .tpp) is rewritten once for the target (Note
# [Rewritten headers]), as the target's C++ sources that include it compile it; its
# rewrite is found before it by every source of the target. A `#pragma vmap` in a header
# the rewritten sources include but nobody rewrites fails the build.
#
# - The rewrite reruns when the source, a header it includes (the tool's depfile), or the
#   tool itself changes, and never on a no-op build.
# - The tool sees the target's whole compile command for the source (Note [The compile
#   command]): CMAKE_CXX_FLAGS and CMAKE_CXX_FLAGS_<CONFIG> (-DNDEBUG in Release), the
#   target's compile options, definitions, include directories and C++ standard, and the
#   source's own compile options and definitions, so the loops it rewrites are the loops
#   the compiler compiles.
# - A refused loop fails the build with the tool's clang-style diagnostic.
# - With CLANG_VMAP_WRITE_DIFFS ON, the unified diff of each rewrite is written next to it
#   (<source>.vmap.diff) for reviewers.
# - The rewritten code calls the batched API, so the target links vmap::rules.
# - KEEP_GOING: loops the tool refuses are left as written, with its warning, instead of
#   failing the build (clang-vmap --keep-going).
# - REMARKS: the tool's remarks on each loop are written as LLVM optimization records
#   (<source>.vmap.yaml next to the rewritten file, clang-vmap --remarks-file), which
#   clang_vmap_report() renders.
# - CHECK: each batched loop also runs as written, from the same state, and a difference in
#   an output or accumulator throws vmap::Error naming the file, line, output, example and
#   both values (clang-vmap --check; Note [Check mode] in vmap/batched.hpp). For test builds:
#   run the test suite on your data to validate the rewrite.
#
# Works the same from an installed package (find_package(ClangVmap)) and in-tree
# (add_subdirectory / FetchContent): both provide the targets vmap::clang-vmap and
# vmap::rules.
#
# Note [One rewrite per target]
# The output lives under a per-target folder: two targets may rewrite the same source with
# different flags, and two custom commands must not produce one file. Under a multi-config
# generator (Ninja Multi-Config) the folder has one subfolder per configuration,
# <bindir>/vmap/<target>/<config>/: each configuration's flags select its own loops (NDEBUG),
# and switching configurations reruns neither the tool nor the compiler.
include_guard(GLOBAL)

# `base`, or `base`/$<CONFIG> under a multi-config generator (Note [One rewrite per target]).
function(_clang_vmap_per_config base out_var)
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config)
    set(${out_var} "${base}/$<CONFIG>" PARENT_SCOPE)
  else()
    set(${out_var} "${base}" PARENT_SCOPE)
  endif()
endfunction()

# `path` with each configuration for $<CONFIG>, where it names it; else `path` itself.
function(_clang_vmap_each_config path out_var)
  set(paths "${path}")
  if(path MATCHES "\\$<CONFIG>")
    set(paths "")
    foreach(config IN LISTS CMAKE_CONFIGURATION_TYPES)
      string(REPLACE "$<CONFIG>" "${config}" config_path "${path}")
      list(APPEND paths "${config_path}")
    endforeach()
  endif()
  set(${out_var} "${paths}" PARENT_SCOPE)
endfunction()

# Note [Vector ISA of compiled kernels] (vmap/fused_isa.hpp): compiled fused kernels target
# AVX-512 where the build machine has it (a plain loop's -march=native there), else AVX2+FMA;
# either runs only on a CPU that has it (the batched ops otherwise).
if(NOT DEFINED CLANG_VMAP_FUSED_AVX512)
  include(CheckCXXSourceRuns)
  check_cxx_source_runs([[
    int main() {
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                     __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
                 ? 0 : 1;
    }]] CLANG_VMAP_HOST_HAS_AVX512)
  option(CLANG_VMAP_FUSED_AVX512
         "Compile clang-vmap's fused kernels for AVX-512 (default: when this machine has it)"
         ${CLANG_VMAP_HOST_HAS_AVX512})
endif()

# The -std= flag the target compiles with, as a generator expression: like CMake, the
# higher of CXX_STANDARD and the cxx_std_NN compile features (its own and those of what it
# links, e.g. vmap::runtime's cxx_std_20); nothing when neither says.
function(_clang_vmap_standard_flag target out_var)
  set(standard "$<TARGET_PROPERTY:${target},CXX_STANDARD>")
  set(features "$<TARGET_PROPERTY:${target},COMPILE_FEATURES>")
  set(extensions "$<TARGET_PROPERTY:${target},CXX_EXTENSIONS>")
  set(chosen "")
  foreach(version 98 11 14 17 20 23 26)
    set(requested "$<OR:$<STREQUAL:${standard},${version}>,$<IN_LIST:cxx_std_${version},${features}>>")
    set(chosen "$<IF:${requested},${version},${chosen}>")
  endforeach()
  # CXX_EXTENSIONS unset means ON (gnu++NN), as CMake compiles it.
  set(dialect "$<IF:$<OR:$<STREQUAL:${extensions},>,$<BOOL:${extensions}>>,gnu++,c++>")
  set(${out_var} "$<$<BOOL:${chosen}>:-std=${dialect}${chosen}>" PARENT_SCOPE)
endfunction()

# Note [The compile command]
# CMake compiles a C++ source with CMAKE_CXX_FLAGS, CMAKE_CXX_FLAGS_<CONFIG>, -std, the
# target's COMPILE_OPTIONS (its own, its directory's add_compile_options and what it links
# brings), -I and -D, and the source's own COMPILE_OPTIONS and COMPILE_DEFINITIONS (which
# move to the rewritten source). The tool gets the same, so a definition such as NDEBUG
# selects the same code for both. The flag variables
# are read when clang_vmap_sources() is called, as for the directory's targets; the
# configuration is chosen by $<CONFIG>, so single- and multi-config generators agree.
function(_clang_vmap_configuration_flags out_var)
  separate_arguments(common UNIX_COMMAND "${CMAKE_CXX_FLAGS}")
  set(flags ${common})
  set(configurations ${CMAKE_CONFIGURATION_TYPES} ${CMAKE_BUILD_TYPE} Debug Release
                     RelWithDebInfo MinSizeRel)
  list(REMOVE_DUPLICATES configurations)
  foreach(configuration IN LISTS configurations)
    string(TOUPPER "${configuration}" upper)
    separate_arguments(per_config UNIX_COMMAND "${CMAKE_CXX_FLAGS_${upper}}")
    if(per_config)
      list(JOIN per_config "$<SEMICOLON>" joined)
      list(APPEND flags "$<$<CONFIG:${configuration}>:${joined}>")
    endif()
  endforeach()
  set(${out_var} ${flags} PARENT_SCOPE)
endfunction()

# Note [Rewritten headers]
# A header's loops (in an inline function, a template, a class) are rewritten once per
# target by `clang-vmap --rewrite-header=<header> <the target's C++ sources>`: each source
# that includes it gives its parse (a template's loop is batched in the instantiations
# those sources compile; one that none of them instantiates is refused), and the tool
# merges them into one file. Copies of it stand first on the target's include path, so
# that `#include <lib/ops.hpp>` and `#include "ops.hpp"` find the rewrite:
# - <output_dir>/include<k>/<path below D> for each include directory D of the target
#   (as set when clang_vmap_sources() is called) holding the header, with -I before D;
# - <output_dir>/<path below the source dir>, next to the rewritten sources, whose "..."
#   includes look there first.
# The header's own "..." includes still resolve next to the original (-iquote). A source
# that is not rewritten and includes it by "..." from its own directory gets the original.
# The tool never sees the copies (they are filtered out of its include path), so the
# sources' rewrites and the header's read the header as written, and the sources' runs
# leave its loops to the header's run (--rewritten-elsewhere).
function(_clang_vmap_header target header_path output_dir keep_going tool_options
         compiler_flags parse_sources out_outputs)
  get_target_property(include_dirs ${target} INCLUDE_DIRECTORIES)
  if(NOT include_dirs)
    set(include_dirs "")
  endif()
  set(copies "")
  set(index 0)
  foreach(dir IN LISTS include_dirs)
    if(NOT dir MATCHES "\\$<" AND IS_ABSOLUTE "${dir}")
      cmake_path(IS_PREFIX dir "${header_path}" NORMALIZE inside)
      if(inside)
        cmake_path(RELATIVE_PATH header_path BASE_DIRECTORY "${dir}" OUTPUT_VARIABLE below)
        list(APPEND copies "${output_dir}/include${index}/${below}")
        target_include_directories(${target} BEFORE PRIVATE "${output_dir}/include${index}")
      endif()
    endif()
    math(EXPR index "${index} + 1")
  endforeach()
  cmake_path(IS_PREFIX CMAKE_CURRENT_SOURCE_DIR "${header_path}" NORMALIZE inside)
  if(inside)
    cmake_path(RELATIVE_PATH header_path BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
               OUTPUT_VARIABLE below)
    list(APPEND copies "${output_dir}/${below}")
  endif()
  if(NOT copies)
    message(FATAL_ERROR "clang_vmap_sources: ${header_path} is neither below an include "
                        "directory of '${target}' nor below ${CMAKE_CURRENT_SOURCE_DIR}: "
                        "no include of it could find its rewrite")
  endif()
  list(GET copies 0 rewritten)
  set(copy_commands "")
  foreach(copy IN LISTS copies)
    cmake_path(GET copy PARENT_PATH copy_dir)
    _clang_vmap_each_config("${copy_dir}" copy_dirs)
    file(MAKE_DIRECTORY ${copy_dirs})
    if(NOT copy STREQUAL rewritten)
      list(APPEND copy_commands COMMAND "${CMAKE_COMMAND}" -E copy "${rewritten}" "${copy}")
    endif()
  endforeach()
  cmake_path(GET header_path PARENT_PATH header_dir)
  target_compile_options(${target} PRIVATE "-iquote" "${header_dir}")
  cmake_path(GET header_path FILENAME name)
  set(tool_command $<TARGET_FILE:vmap::clang-vmap>)
  if(keep_going)
    set(tool_command "${CMAKE_COMMAND}" "-DOUTPUT=${rewritten}"
                     -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/ClangVmapKeepGoing.cmake"
                     -- ${tool_command} --keep-going)
  endif()
  add_custom_command(
    OUTPUT ${copies}
    COMMAND ${tool_command} "--rewrite-header=${header_path}" ${parse_sources}
            -o "${rewritten}" -MD -MF "${rewritten}.d" ${tool_options} -- ${compiler_flags}
    COMMAND "${CMAKE_COMMAND}" -E touch_nocreate "${rewritten}"
    ${copy_commands}
    DEPENDS "${header_path}" ${parse_sources} ${ARGN}
    DEPFILE "${rewritten}.d"
    COMMENT "clang-vmap: rewriting ${name} (header of ${target})"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  set(${out_outputs} ${copies} PARENT_SCOPE)
endfunction()

function(clang_vmap_sources target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "KEEP_GOING;REMARKS;CHECK" "" "")
  if(NOT TARGET ${target})
    message(FATAL_ERROR "clang_vmap_sources: no target named '${target}'")
  endif()
  foreach(required vmap::clang-vmap vmap::rules)
    if(NOT TARGET ${required})
      message(FATAL_ERROR "clang_vmap_sources: target ${required} is missing "
                          "(find_package(ClangVmap) or add_subdirectory(clang-vmap) first)")
    endif()
  endforeach()
  get_target_property(target_source_dir ${target} SOURCE_DIR)
  if(NOT target_source_dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    # Custom command outputs are only known to targets of the directory that adds them.
    message(FATAL_ERROR "clang_vmap_sources: call it in the directory that defines "
                        "'${target}' (${target_source_dir})")
  endif()

  # Target-level dependency on an in-tree tool (Makefiles need it to build the tool
  # first); the file-level dependency reruns rewrites when the tool is rebuilt.
  set(tool_dependencies "$<TARGET_FILE:vmap::clang-vmap>")
  get_target_property(tool_is_imported vmap::clang-vmap IMPORTED)
  if(NOT tool_is_imported)
    get_target_property(tool_target vmap::clang-vmap ALIASED_TARGET)
    list(APPEND tool_dependencies ${tool_target})
  endif()

  # The link first: the include directories below then hold vmap::rules' and
  # vmap::runtime's. APPEND keeps working whatever signature the user's own
  # target_link_libraries calls use.
  set_property(TARGET ${target} APPEND PROPERTY LINK_LIBRARIES vmap::rules)
  # The whole target, so every source that instantiates a fused kernel agrees.
  # Once, however many clang_vmap_sources() calls name the target.
  get_target_property(existing_definitions ${target} COMPILE_DEFINITIONS)
  if(CLANG_VMAP_FUSED_AVX512 AND NOT "VMAP_FUSED_AVX512" IN_LIST existing_definitions)
    target_compile_definitions(${target} PRIVATE VMAP_FUSED_AVX512)
  endif()
  get_target_property(target_type ${target} TYPE)
  if(target_type MATCHES "STATIC_LIBRARY|OBJECT_LIBRARY")
    set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_LIBRARIES
                 "$<LINK_ONLY:vmap::rules>")
  endif()

  # Like the compiler's command line, without the compiler's own include directories: an
  # explicit -I/usr/include reorders the search and breaks libstdc++'s #include_next.
  set(implicit_dirs "")
  foreach(dir IN LISTS CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
    string(REGEX REPLACE "([][+.*()^$?|\\])" "\\\\\\1" escaped "${dir}")
    list(APPEND implicit_dirs "${escaped}")
  endforeach()
  list(JOIN implicit_dirs "|" implicit_regex)
  set(includes "$<REMOVE_DUPLICATES:$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>>")
  set(includes "$<FILTER:${includes},EXCLUDE,^(${implicit_regex})$>")
  # Note [Rewritten headers]: the tool reads the headers as written.
  set(target_dir "${CMAKE_CURRENT_BINARY_DIR}/vmap/${target}")
  _clang_vmap_per_config("${target_dir}" output_dir)
  string(REGEX REPLACE "([][+.*()^$?|\\])" "\\\\\\1" escaped_target_dir "${target_dir}")
  set(includes
      "$<FILTER:${includes},EXCLUDE,^${escaped_target_dir}(/[^/]+)?/include[0-9]+$>")
  set(definitions "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(options "$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>")
  _clang_vmap_configuration_flags(configuration_flags)
  _clang_vmap_standard_flag(${target} standard_flag)
  set(compiler_flags
      ${configuration_flags}
      "${standard_flag}"
      "${options}"
      "$<$<BOOL:${includes}>:-I$<JOIN:${includes},$<SEMICOLON>-I>>"
      "$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},$<SEMICOLON>-D>>")

  get_target_property(target_sources ${target} SOURCES)
  # Headers apart (Note [Rewritten headers]); the target's C++ sources parse them.
  set(sources "")
  set(headers "")
  foreach(file IN LISTS arg_UNPARSED_ARGUMENTS)
    cmake_path(ABSOLUTE_PATH file BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
               NORMALIZE OUTPUT_VARIABLE file_path)
    if(NOT EXISTS "${file_path}")
      message(FATAL_ERROR "clang_vmap_sources: ${file_path} does not exist")
    endif()
    if(file_path MATCHES "\\.(h|hh|hpp|hxx|h\\+\\+|inl|ipp|tpp)$")
      list(APPEND headers "${file_path}")
    else()
      list(APPEND sources "${file_path}")
    endif()
  endforeach()
  set(parse_sources ${sources})
  foreach(existing IN LISTS target_sources)
    if(NOT existing MATCHES "\\$<" AND existing MATCHES "\\.(cpp|cc|cxx|c\\+\\+|C)$")
      cmake_path(ABSOLUTE_PATH existing BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
                 NORMALIZE OUTPUT_VARIABLE existing_path)
      list(APPEND parse_sources "${existing_path}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES parse_sources)
  set(check_option "")
  if(arg_CHECK)
    set(check_option --check)
  endif()
  set(elsewhere_options "")
  foreach(header_path IN LISTS headers)
    if(NOT parse_sources)
      message(FATAL_ERROR "clang_vmap_sources: '${target}' has no C++ source to parse "
                          "${header_path} with")
    endif()
    _clang_vmap_header(${target} "${header_path}" "${output_dir}" "${arg_KEEP_GOING}"
                       "${check_option}" "${compiler_flags};-Wno-error;-Wno-unknown-warning-option"
                       "${parse_sources}" copies ${tool_dependencies})
    list(APPEND target_sources ${copies})
    list(APPEND elsewhere_options "--rewritten-elsewhere=${header_path}")
  endforeach()
  list(JOIN headers "|" joined_headers)
  foreach(source_path IN LISTS sources)
    cmake_path(IS_PREFIX CMAKE_CURRENT_SOURCE_DIR "${source_path}" NORMALIZE
               source_is_inside)
    if(source_is_inside)
      cmake_path(RELATIVE_PATH source_path BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
                 OUTPUT_VARIABLE relative)
    else()
      cmake_path(GET source_path FILENAME relative)
    endif()
    cmake_path(REMOVE_EXTENSION relative LAST_ONLY OUTPUT_VARIABLE stem)
    set(rewritten "${output_dir}/${stem}.vmap.cpp")
    set(depfile "${output_dir}/${stem}.vmap.d")
    cmake_path(GET rewritten PARENT_PATH rewritten_dir)
    _clang_vmap_each_config("${rewritten_dir}" rewritten_dirs)
    file(MAKE_DIRECTORY ${rewritten_dirs})

    get_source_file_property(source_options "${source_path}" COMPILE_OPTIONS)
    get_source_file_property(source_definitions "${source_path}" COMPILE_DEFINITIONS)
    if(NOT source_options)
      set(source_options "")
    endif()
    if(NOT source_definitions)
      set(source_definitions "")
    endif()
    set(source_flags ${source_options})
    foreach(definition IN LISTS source_definitions)
      list(APPEND source_flags "-D${definition}")
    endforeach()
    # The tool parses with clang, the build may compile with another compiler: warnings
    # the compiler's -Werror is meant for, or warning flags clang does not know, must not
    # stop the rewrite.
    # A loop in a header nobody rewrites would reach the compiler as written.
    set(source_compiler_flags ${compiler_flags} ${source_flags} -Wno-error
                              -Wno-unknown-warning-option
                              -Werror=vmap-pragma-in-header)

    set(outputs "${rewritten}")
    set(tool_command $<TARGET_FILE:vmap::clang-vmap>)
    set(report_options "")
    if(arg_KEEP_GOING)
      set(tool_command "${CMAKE_COMMAND}" "-DOUTPUT=${rewritten}"
                       -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/ClangVmapKeepGoing.cmake"
                       -- ${tool_command})
      list(APPEND report_options --keep-going)
    endif()
    if(arg_REMARKS)
      set(remarks "${output_dir}/${stem}.vmap.yaml")
      list(APPEND outputs "${remarks}")
      list(APPEND report_options "--remarks-file=${remarks}")
      set_property(GLOBAL APPEND PROPERTY CLANG_VMAP_REMARK_FILES "${remarks}")
      set_property(GLOBAL APPEND PROPERTY CLANG_VMAP_REMARK_TARGETS ${target})
    endif()
    set(diff_command "")
    if(CLANG_VMAP_WRITE_DIFFS)
      set(diff "${output_dir}/${stem}.vmap.diff")
      list(APPEND outputs "${diff}")
      set(diff_command
          COMMAND "${CMAKE_COMMAND}" "-DTOOL=$<TARGET_FILE:vmap::clang-vmap>"
                  "-DSOURCE=${source_path}" "-DOUTPUT=${diff}" "-DKEEP_GOING=${arg_KEEP_GOING}"
                  "-DREWRITTEN_ELSEWHERE=${joined_headers}"
                  -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/ClangVmapDiff.cmake" -- ${source_compiler_flags})
    endif()

    cmake_path(RELATIVE_PATH rewritten BASE_DIRECTORY "${CMAKE_BINARY_DIR}"
               OUTPUT_VARIABLE rewritten_for_humans)
    string(REPLACE "$<CONFIG>" "<config>" rewritten_for_humans "${rewritten_for_humans}")
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND ${tool_command} "${source_path}" -o "${rewritten}"
              -MD -MF "${depfile}" ${report_options} ${check_option} ${elsewhere_options}
              -- ${source_compiler_flags}
      # The tool may leave an unchanged output as it was; the build must see it as new.
      COMMAND "${CMAKE_COMMAND}" -E touch_nocreate "${rewritten}"
      ${diff_command}
      DEPENDS "${source_path}" ${tool_dependencies}
      DEPFILE "${depfile}"
      COMMENT "clang-vmap: rewriting ${relative} -> ${rewritten_for_humans}"
      COMMAND_EXPAND_LISTS
      VERBATIM)

    # The rewritten file lives in the build tree: its "..." includes still resolve next
    # to the original. Loops left as written (--keep-going) still carry the pragma.
    cmake_path(GET source_path PARENT_PATH source_dir)
    # The source's own options and definitions now apply to its rewrite (each
    # configuration's file: a source property names one path).
    _clang_vmap_each_config("${rewritten}" rewritten_files)
    set_property(SOURCE ${rewritten_files} APPEND PROPERTY COMPILE_OPTIONS ${source_options})
    set_property(SOURCE ${rewritten_files} APPEND PROPERTY COMPILE_DEFINITIONS
                 ${source_definitions})
    set_property(SOURCE ${rewritten_files} APPEND PROPERTY COMPILE_OPTIONS
                 "-iquote" "${source_dir}"
                 "$<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang,AppleClang>:-Wno-unknown-pragmas>")

    set(replaced FALSE)
    set(new_sources "")
    foreach(existing IN LISTS target_sources)
      cmake_path(ABSOLUTE_PATH existing BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
                 NORMALIZE OUTPUT_VARIABLE existing_path)
      if(existing_path STREQUAL source_path)
        set(existing "${rewritten}")
        set(replaced TRUE)
      endif()
      list(APPEND new_sources "${existing}")
    endforeach()
    if(NOT replaced)
      list(APPEND new_sources "${rewritten}")
    endif()
    set(target_sources "${new_sources}")
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES "${target_sources}")

  # Note [The user's sources in compile_commands.json]
  # clangd and other IDEs look the file being edited up in compile_commands.json, which
  # lists the rewrites the target compiles. An object library that no build builds lists
  # each original with the target's flags, the pragma warning off as for the rewrite.
  if(sources AND CMAKE_EXPORT_COMPILE_COMMANDS)
    set(ide_target ${target}_vmap_as_written)
    if(NOT TARGET ${ide_target})
      add_library(${ide_target} OBJECT EXCLUDE_FROM_ALL)
      target_link_libraries(${ide_target} PRIVATE vmap::rules)  # C++20, as the rewrite
      target_include_directories(${ide_target} PRIVATE "${includes}")
      target_compile_definitions(${ide_target} PRIVATE "${definitions}")
      target_compile_options(${ide_target} PRIVATE "${standard_flag}" "${options}"
        "$<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang,AppleClang>:-Wno-unknown-pragmas>")
    endif()
    target_sources(${ide_target} PRIVATE ${sources})
  endif()
endfunction()

# clang_vmap_report(<name>)
#
# A target <name> that renders the remarks of every clang_vmap_sources(... REMARKS) call
# made so far in the project with LLVM's opt-viewer (llvm-<version>-tools; Python with
# pyyaml and pygments) into <bindir>/<name>/index.html: each rewritten loop at its source
# line with its batch levels, ops, per-example fallbacks, run-time overlap checks, and each
# loop left as written with the reason. Call it after those clang_vmap_sources() calls.
function(clang_vmap_report name)
  get_property(remark_files GLOBAL PROPERTY CLANG_VMAP_REMARK_FILES)
  if(NOT remark_files)
    message(WARNING "clang_vmap_report(${name}): no clang_vmap_sources(... REMARKS) call "
                    "before it: the report would be empty")
  endif()
  find_package(Python3 COMPONENTS Interpreter QUIET)
  find_file(CLANG_VMAP_OPT_VIEWER opt-viewer.py
            HINTS /usr/lib/llvm-19/share/opt-viewer /usr/share/opt-viewer
            DOC "LLVM's opt-viewer.py, for clang_vmap_report()")
  if(NOT Python3_Interpreter_FOUND OR NOT CLANG_VMAP_OPT_VIEWER)
    message(WARNING "clang_vmap_report(${name}): opt-viewer.py or python3 not found "
                    "(apt-get install llvm-19-tools python3-yaml python3-pygments); "
                    "the target only says so")
    add_custom_target(${name} COMMAND "${CMAKE_COMMAND}" -E echo
                      "clang_vmap_report: opt-viewer.py or python3 not found" VERBATIM)
    return()
  endif()
  _clang_vmap_per_config("${CMAKE_CURRENT_BINARY_DIR}/${name}" report_dir)
  add_custom_command(
    OUTPUT "${report_dir}/index.html"
    COMMAND "${CMAKE_COMMAND}" -E rm -rf "${report_dir}"
    COMMAND "${Python3_EXECUTABLE}" "${CLANG_VMAP_OPT_VIEWER}" -j 1 -o "${report_dir}"
            ${remark_files}
    DEPENDS ${remark_files}
    COMMENT "clang-vmap: report of the rewritten loops in ${report_dir}/index.html"
    VERBATIM)
  add_custom_target(${name} DEPENDS "${report_dir}/index.html")
  # The records are written by the targets' rewrites, which may live in other directories.
  get_property(remark_targets GLOBAL PROPERTY CLANG_VMAP_REMARK_TARGETS)
  if(remark_targets)
    list(REMOVE_DUPLICATES remark_targets)
    add_dependencies(${name} ${remark_targets})
  endif()
endfunction()
