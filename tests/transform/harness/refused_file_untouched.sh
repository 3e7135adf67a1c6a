#!/usr/bin/env bash
# refused_file_untouched.sh TOOL FILE TMP FLAGS...: the second half of a refusal test (lit,
# errors/*.cpp), after its first RUN line wrote the tool's stdout to TMP.stdout: a refused
# FILE writes nothing on stdout, and -i leaves it as it was (a copy at TMP.cpp is rewritten in
# place), exiting with status 1. That -o writes no file for a refused input is one test in
# cli_test.cpp (RefusedFileGetsNoOutput): the driver writes after every loop is rewritten,
# whatever refused one, and a tool run more per refusal was a minute of CI (Note [CI time]).
set -u
tool=$1 file=$2 tmp=$3
shift 3
if [[ -s $tmp.stdout ]]; then
  echo "clang-vmap wrote to stdout for the refused $file:" && cat "$tmp.stdout"
  exit 1
fi
cp "$file" "$tmp.cpp"
"$tool" -i "$tmp.cpp" -- "$@" 2> /dev/null
status=$?
[[ $status == 1 ]] || { echo "clang-vmap -i $tmp.cpp: exit status $status, expected 1"; exit 1; }
cmp -s "$file" "$tmp.cpp" || { echo "clang-vmap -i changed the refused $file"; exit 1; }
