#!/usr/bin/env bash
# refused_file_untouched.sh TOOL FILE TMP FLAGS...: the second half of a refusal test (lit,
# errors/*.cpp), after its first RUN line wrote the tool's stdout to TMP.stdout: a refused
# FILE writes nothing on stdout, no file with -o, and -i leaves it as it was (a copy at
# TMP.cpp is rewritten in place); each of these runs exits with status 1.
set -u
tool=$1 file=$2 tmp=$3
shift 3
if [[ -s $tmp.stdout ]]; then
  echo "clang-vmap wrote to stdout for the refused $file:" && cat "$tmp.stdout"
  exit 1
fi
refused() {
  "$tool" "$@" 2> /dev/null
  local status=$?
  [[ $status == 1 ]] || { echo "clang-vmap $*: exit status $status, expected 1"; exit 1; }
}
rm -f "$tmp.out.cpp"
refused "$file" -o "$tmp.out.cpp" -- "$@"
[[ ! -e $tmp.out.cpp ]] || { echo "clang-vmap -o wrote $tmp.out.cpp for the refused $file"; exit 1; }
cp "$file" "$tmp.cpp"
refused -i "$tmp.cpp" -- "$@"
cmp -s "$file" "$tmp.cpp" || { echo "clang-vmap -i changed the refused $file"; exit 1; }
