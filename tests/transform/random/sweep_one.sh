# Sourced by sweep.sh (one seed: sweep_one) and by the interestingness test that reduction
# writes (check_program). Configured through the VMAP_SWEEP_* environment sweep.sh exports.
#
# check_program PROGRAM DIR: rewrites PROGRAM (with --keep-going for --surface programs),
# builds it as written and rewritten, runs both under the timeout and compares the outputs.
# Sets `outcome` (agreed, refused, or the failure's kind in capitals), `detail`, `loops`
# (the program's `#pragma vmap` lines) and `refused` (the loops the tool left as written).
check_program() {
  local program=$1 dir=$2 limit=$VMAP_SWEEP_TIMEOUT
  local root=$VMAP_SWEEP_ROOT build=$VMAP_SWEEP_BUILD name keep= status before
  name=$(basename "$program")
  mkdir -p "$dir"
  loops=$(grep -c '^ *#pragma vmap' "$program")
  refused=0 detail=
  [[ $VMAP_SWEEP_MODE == --surface ]] && keep=--keep-going
  rm -f "$dir/rewritten.cpp" "$dir/as_written" "$dir/rewritten"
  before=$(sha256sum < "$program")
  timeout -k 10 "$limit" "$build/transform/clang-vmap" $keep "$program" -o "$dir/rewritten.cpp" \
    -- -std=c++20 -I"$root/runtime/include" -I"$root/rules/include" 2> "$dir/tool.txt"
  status=$?
  if [[ $before != $(sha256sum < "$program") ]]; then
    outcome=TOOL_CHANGED_INPUT
    return
  fi
  case $status in
    0) ;;
    1)
      if ! grep -q "$name:[0-9]*:[0-9]*: \(error\|warning\): " "$dir/tool.txt"; then
        outcome=BAD_REFUSAL detail="exit status 1 without a diagnostic at a line: $(head -c 300 "$dir/tool.txt")"
        return
      fi
      refused=$(grep -c "$name:[0-9]*:[0-9]*: note: loop left as written" "$dir/tool.txt")
      ((refused > loops)) && refused=$loops
      if [[ ! -s $dir/rewritten.cpp ]]; then
        refused=$loops outcome=refused
        detail=$(grep -m1 ": error: " "$dir/tool.txt" | sed 's/^.*\/\([^/]*:[0-9]*:[0-9]*:\)/\1/')
        return
      fi
      ;;
    124 | 137) outcome=TOOL_HANG detail="clang-vmap ran over ${limit}s"; return ;;
    *)
      outcome=TOOL_CRASH detail="clang-vmap exit status $status: $(grep -m1 . "$dir/tool.txt")"
      return
      ;;
  esac
  local cxx=$VMAP_SWEEP_CXX
  # VMAP_SWEEP_REDUCING (the reducer's test): -O1 to build faster, and no uninitialised reads in
  # the program as written (else a reducer finds undefined behaviour instead of the defect).
  local optimise= warnings=-w
  [[ -n ${VMAP_SWEEP_REDUCING:-} ]] && optimise=-O1 warnings="-Werror=uninitialized -Werror=maybe-uninitialized -Wno-unknown-pragmas"
  # A build over the limit (a loaded machine) is no verdict on the program: BUILD_TIMEOUT.
  (cd "$build" && timeout -k 10 "$limit" $cxx $VMAP_SWEEP_FLAGS $optimise $warnings \
     "$program" -o "$dir/as_written" $VMAP_SWEEP_LIBS) > "$dir/build.txt" 2>&1
  status=$?
  if [[ $status == 124 || $status == 137 ]]; then
    outcome=BUILD_TIMEOUT detail="building it as written ran over ${limit}s"
    return
  elif [[ $status != 0 ]]; then
    outcome=GENERATOR_INVALID detail="as written does not build: $(grep -m1 error "$dir/build.txt")"
    return
  fi
  (cd "$build" && timeout -k 10 "$limit" $cxx $VMAP_SWEEP_FLAGS $optimise -w \
     -iquote "$root/tests/transform" "$dir/rewritten.cpp" -o "$dir/rewritten" \
     $VMAP_SWEEP_LIBS) > "$dir/build.txt" 2>&1
  status=$?
  if [[ $status == 124 || $status == 137 ]]; then
    outcome=BUILD_TIMEOUT detail="building the rewrite ran over ${limit}s"
    return
  elif [[ $status != 0 ]]; then
    outcome=REWRITE_DOES_NOT_BUILD detail=$(grep -m1 error "$dir/build.txt")
    # The rewrite's #line directives name the program's line: the case around it fails.
    local line
    line=$(grep -m1 -o "$name:[0-9]*:[0-9]*: error" "$dir/build.txt" | cut -d: -f2)
    [[ -n $line ]] && cases=$(head -n "$line" "$program" | grep '^// case [0-9]*,' | tail -1 |
                              sed 's/^\/\/ case \([0-9]*\),.*/\1/')
    detail+="${cases:+ (cases $cases)}"
    return
  fi
  timeout -k 5 "$limit" "$dir/as_written" > "$dir/as_written.txt" 2> "$dir/as_written.err"
  status=$?
  if [[ $status != 0 ]]; then
    outcome=GENERATOR_FAILS detail="as written exits with status $status: $(head -c 200 "$dir/as_written.err")"
    return
  fi
  timeout -k 5 "$limit" "$dir/rewritten" > "$dir/rewritten.txt" 2> "$dir/rewritten.err"
  status=$?
  if [[ $status == 124 || $status == 137 ]]; then
    outcome=HANG detail="rewritten ran over ${limit}s"
  elif [[ $status != 0 ]]; then
    outcome=CRASH detail="rewritten exits with status $status: $(head -c 200 "$dir/rewritten.err")"
  elif ! compare_outputs "$dir/as_written.txt" "$dir/rewritten.txt" > "$dir/compare.txt" 2>&1; then
    outcome=DIFFER detail=$(head -1 "$dir/compare.txt")
  else
    outcome=agreed
    return
  fi
  failing_cases "$dir"
}

# The comparator of the differential tests, on two saved outputs (it runs programs: these
# print the files).
compare_outputs() {
  local scripts
  scripts=$(mktemp -d)
  printf '#!/bin/sh\ncat "%s"\n' "$1" > "$scripts/a"
  printf '#!/bin/sh\ncat "%s"\n' "$2" > "$scripts/b"
  chmod +x "$scripts/a" "$scripts/b"
  "$VMAP_SWEEP_BUILD/tests/transform/vmap_differential_compare" "$scripts/a" "$scripts/b"
  local status=$?
  rm -rf "$scripts"
  return $status
}

# Sets `cases` to the cases (`case N` blocks of the output) whose blocks differ, a block the
# rewritten program did not print included. After a crash or hang only the first: the blocks
# after it are missing because of it.
failing_cases() {
  local dir=$1 c
  cases=
  rm -rf "$dir/cases" && mkdir -p "$dir/cases"
  awk -v d="$dir/cases" '/^case [0-9]+$/ { f = d "/" $2 ".a" } f { print > f }' "$dir/as_written.txt"
  awk -v d="$dir/cases" '/^case [0-9]+$/ { f = d "/" $2 ".b" } f { print > f }' "$dir/rewritten.txt"
  for c in $(ls "$dir/cases" | sed -n 's/\.a$//p' | sort -n); do
    if [[ ! -e $dir/cases/$c.b ]] || ! compare_outputs "$dir/cases/$c.a" "$dir/cases/$c.b" > /dev/null 2>&1; then
      cases+="${cases:+,}$c"
      [[ $outcome == DIFFER ]] || break
    fi
  done
  detail+="${cases:+ (cases $cases)}"
}

# One seed: generate, check, log line on stdout. A failure in some cases keeps their
# reproducer (and reduces the first), then the program is checked again without them
# (--skip), so that one failing case (a rewrite that does not build, a hang) does not hide
# the others; at most 6 rounds.
sweep_one() {
  local seed=$1 work=$VMAP_SWEEP_WORK generator mode_flags=() skip= round first_outcome=
  generator=$VMAP_SWEEP_BUILD/tests/transform/random/vmap_generate_program
  case $VMAP_SWEEP_MODE in
    --surface) mode_flags=(--surface "--cases=$VMAP_SWEEP_CASES" $VMAP_SWEEP_AVOID) ;;
    --hostile) mode_flags=(--hostile) ;;
  esac
  local program=$work/programs/program_$seed.cpp dir=$work/runs/$seed keep=$work/failures/$seed
  local all_loops all_refused failures=
  mkdir -p "$work/programs"
  for round in 1 2 3 4 5 6; do
    "$generator" "$seed" "$program" "${mode_flags[@]}" ${skip:+--skip=$skip}
    cases=
    check_program "$program" "$dir"
    if [[ $round == 1 ]]; then
      all_loops=$loops all_refused=$refused first_outcome=$outcome
    fi
    [[ $outcome == agreed || $outcome == refused ]] && break
    mkdir -p "$keep"
    cp "$program" "$keep/program_$seed${skip:+_skip_$skip}.cpp"
    cp "$dir"/*.txt "$dir"/*.err "$dir/rewritten.cpp" "$keep/" 2> /dev/null
    failures+="; $outcome${detail:+ $detail}"
    [[ $VMAP_SWEEP_MODE == --surface && -n $cases ]] || break
    failures+=$(reduce_case "$seed" "${cases%%,*}" "$outcome" "$keep")
    skip+="${skip:+,}$cases"
  done
  rm -rf "$dir"
  [[ -z $failures ]] && rm -f "$program"
  [[ -n $failures && $outcome == agreed ]] && failures+="; without cases $skip: agreed"
  echo "seed $seed: $first_outcome loops $all_loops refused $all_refused${failures:+ $failures}"
}

# reduce_case SEED CASE KIND DIR: the case alone (--only), then cvise or creduce on it when
# installed and VMAP_SWEEP_REDUCE=1. Prints what it kept, for the log line.
reduce_case() {
  local seed=$1 c=$2 kind=$3 keep=$4 program
  program=$keep/case_$c.cpp
  "$VMAP_SWEEP_BUILD/tests/transform/random/vmap_generate_program" "$seed" "$program" --surface \
    "--cases=$VMAP_SWEEP_CASES" "--only=$c" $VMAP_SWEEP_AVOID
  check_program "$program" "$keep/case_$c"
  if [[ $outcome != "$kind" ]]; then
    echo "; case $c alone: $outcome"
    return
  fi
  local reducer
  reducer=$(command -v cvise || command -v creduce)
  if [[ $VMAP_SWEEP_REDUCE != 1 || -z $reducer ]]; then
    echo "; case $c alone: $kind, $program"
    return
  fi
  mkdir -p "$keep/reduce"
  cp "$program" "$keep/reduce/reduced.cpp"
  # The test runs in a copy of the directory: the same kind of failure (VMAP_SWEEP_REDUCING:
  # see check_program).
  cat > "$keep/reduce/interesting.sh" << EOF
#!/usr/bin/env bash
$(export -p | grep ' VMAP_SWEEP_')
export VMAP_SWEEP_REDUCING=1
source "$VMAP_SWEEP_ROOT/tests/transform/random/sweep_one.sh"
check_program "\$PWD/reduced.cpp" "\$PWD/run" > /dev/null 2>&1
[[ \$outcome == $kind ]]
EOF
  chmod +x "$keep/reduce/interesting.sh"
  (cd "$keep/reduce" && timeout "${VMAP_SWEEP_REDUCE_SECONDS:-900}" "$reducer" --n 1 \
     "$keep/reduce/interesting.sh" reduced.cpp > reduce.log 2>&1)
  echo "; case $c alone: $kind; reduced ($(wc -l < "$keep/reduce/reduced.cpp") lines): $keep/reduce/reduced.cpp"
}
