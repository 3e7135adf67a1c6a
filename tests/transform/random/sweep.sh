#!/usr/bin/env bash
# tests/transform/random/sweep.sh [--hostile|--plain] SEED... : the random differential test
# at seeds CI does not run, with counts. Each program is generated, then either refused
# (exit status 1, an error at a line, the file untouched) or rewritten, built as written and
# rewritten with the flags of the build's own differential programs, run both ways and
# compared by vmap_differential_compare. Prints one line per seed and the counts; exits 1 if
# any program crashed the tool, was refused badly, did not build rewritten, or disagreed.
# Needs a configured and built build/release (or $VMAP_BUILD_DIR) with the transform tests.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
build=${VMAP_BUILD_DIR:-$root/build/release}
mode=--hostile
if [[ ${1:-} == --hostile || ${1:-} == --plain ]]; then mode=$1; shift; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The compile and link lines of a differential program the build made (the same flags).
rule() { grep -A8 "^build tests/transform/$1" "$build/build.ninja" | grep -m1 "^  $2 = " | sed "s/^  $2 = //"; }
flags="$(rule CMakeFiles/transform_add_1d_rewritten.dir DEFINES) $(rule CMakeFiles/transform_add_1d_rewritten.dir FLAGS) $(rule CMakeFiles/transform_add_1d_rewritten.dir INCLUDES)"
libs=$(rule transform_add_1d_rewritten: LINK_LIBRARIES)
cxx=$(grep -m1 "^CMAKE_CXX_COMPILER:" "$build/CMakeCache.txt" | cut -d= -f2)
programs=0 refused=0 rewritten=0 agreed=0 bad=0
for seed in "$@"; do
  program=$work/program_$seed.cpp
  "$build/tests/transform/random/vmap_generate_program" "$seed" "$program" \
    $([[ $mode == --hostile ]] && echo --hostile)
  programs=$((programs + 1))
  before=$(sha256sum < "$program")
  "$build/transform/clang-vmap" "$program" -o "$work/rewritten_$seed.cpp" -- -std=c++20 \
    -I"$root/runtime/include" -I"$root/rules/include" 2> "$work/tool_$seed.txt"
  status=$?
  if [[ $status != 0 ]]; then
    if [[ $status == 1 && $before == $(sha256sum < "$program") ]] &&
       grep -q "program_$seed.cpp:[0-9]*:[0-9]*: error: " "$work/tool_$seed.txt"; then
      refused=$((refused + 1))
      echo "seed $seed: refused: $(grep -m1 ': error: ' "$work/tool_$seed.txt" | sed 's/^.*program_/program_/')"
    else
      bad=$((bad + 1))
      echo "seed $seed: BAD REFUSAL (status $status): $(head -3 "$work/tool_$seed.txt")"
    fi
    continue
  fi
  rewritten=$((rewritten + 1))
  (cd "$build" && $cxx $flags -w "$program" -o "$work/as_written_$seed" $libs) &&
    (cd "$build" && $cxx $flags -w -iquote "$root/tests/transform" "$work/rewritten_$seed.cpp" \
       -o "$work/rewritten_$seed" $libs) 2> "$work/build_$seed.txt"
  if [[ $? != 0 ]]; then
    bad=$((bad + 1))
    echo "seed $seed: REWRITE DOES NOT BUILD: $(grep -m1 error "$work/build_$seed.txt")"
    continue
  fi
  if "$build/tests/transform/vmap_differential_compare" "$work/as_written_$seed" \
       "$work/rewritten_$seed" > "$work/compare_$seed.txt" 2>&1; then
    agreed=$((agreed + 1))
    echo "seed $seed: rewritten, agreed"
  else
    bad=$((bad + 1))
    echo "seed $seed: DISAGREE: $(head -5 "$work/compare_$seed.txt")"
  fi
done
echo "mode $mode: programs $programs, refused $refused, rewritten $rewritten, agreed $agreed, bad $bad"
[[ $bad == 0 ]]
