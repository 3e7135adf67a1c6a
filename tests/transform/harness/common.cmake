# Shared by the harness scripts, run as `cmake -D... -P <script> -- <compiler flags>`.

include(${CMAKE_CURRENT_LIST_DIR}/../../../cmake/ClangVmapScriptArgs.cmake)

# Drops the lines holding FileCheck directives: copied from the input into the tool's
# output (or shown in a diagnostic's source snippet), they would match themselves.
function(drop_check_lines text out_var)
  string(REGEX REPLACE "[^\n]*//[ \t]*CHECK[-A-Z]*:[^\n]*\n?" "" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# FileCheck's INPUT's directives against TEXT (saved as FILE for the failure message).
# The rewrite's `#line` directives are dropped first: the CHECK lines are about the code
# (tests/transform/line_directives/ checks the directives themselves).
function(file_check text file)
  drop_check_lines("${text}" checked)
  string(REGEX REPLACE "(^|\n)#line [0-9]+ \"[^\n]*\"\n" "\\1" checked "${checked}")
  file(WRITE "${file}" "${checked}")
  execute_process(COMMAND "${FILECHECK}" "${INPUT}" --input-file "${file}"
                  RESULT_VARIABLE status ERROR_VARIABLE mismatch)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "FileCheck of ${INPUT} against ${file} failed:\n${mismatch}")
  endif()
endfunction()

# Writes to OUTPUT a program that prints MESSAGE and fails: a rewrite that went wrong fails
# its differential test, not the build (Note [Differential programs are built by a test]).
function(write_failing_stub output message)
  file(WRITE "${output}" "#include <cstdio>
int main() {
  std::fputs(R\"vmap_stub(${message})vmap_stub\", stderr);
  return 1;
}
")
endfunction()
