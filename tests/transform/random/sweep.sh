#!/usr/bin/env bash
# tests/transform/random/sweep.sh [options] [SEED...]: the random differential test at many
# seeds, in parallel, with counts (issue 31). Each program is generated, rewritten by
# clang-vmap, built as written and rewritten with the flags of the build's own differential
# programs, both run (each under a timeout: a hang is a failure) and compared by
# vmap_differential_compare. One line per seed goes to the log; the counts are printed at the
# end; exit status 1 if any program failed. A program's failing cases are left out in turn
# (--skip) and the rest checked again, so that one failure does not hide the others.
#
#   --surface (default)  programs of many loops over the whole SPEC surface (surface.cpp),
#                        rewritten with --keep-going: a loop the tool refuses is left as
#                        written (a warning at its line) and the others are still compared
#   --hostile, --plain   the older one-program-a-few-loops modes (refused = whole program)
#   -j N                 parallel runs (default: nproc)
#   -n N                 programs, seeds FIRST..FIRST+N-1 (default: enough for 10,000 loops)
#   --first S            the first seed (default 1)
#   --cases N            cases (loops) to a --surface program (default 30)
#   --avoid-known        leave out the forms of open defects (KNOWN.md), as CI does
#   --timeout S          seconds for each tool run, build and program run (default 180)
#   --log FILE           the per-seed log (default sweep.log in the work directory)
#   --work DIR           keep the programs here (default: a temporary directory, kept only
#                        for failing seeds' reproducers)
#   --no-reduce          do not run cvise or creduce (the failing case alone is still tried)
# A failing --surface program is reduced: first to its first failing case alone
# (`vmap_generate_program SEED f.cpp --surface --only=CASE`), then, if cvise or creduce is
# installed (Debian: apt-get install cvise), by it, with an interestingness test that
# rewrites, rebuilds (at -O1), runs and compares and keeps the failure's kind (sweep_one.sh).
# Examples: tests/transform/random/sweep.sh -j1 -n 3
#           tests/transform/random/sweep.sh --hostile 1 2 3
# Needs a configured and built build/release (or $VMAP_BUILD_DIR) with the targets
# clang-vmap, vmap_generate_program, vmap_differential_compare and
# transform_add_1d_rewritten (for the runtime libraries and the flags).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${VMAP_BUILD_DIR:-$root/build/release}

# One seed, in a worker: `sweep.sh --worker SEED`, configured through the environment.
if [[ ${1:-} == --worker ]]; then
  # shellcheck source=sweep_one.sh
  source "$here/sweep_one.sh"
  sweep_one "$2"
  exit 0
fi

mode=--surface jobs=$(nproc) programs= first=1 cases=30 avoid= timeout_s=180 log= work=
reduce=1 seeds=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --surface | --hostile | --plain) mode=$1 ;;
    -j) jobs=$2; shift ;;
    -j*) jobs=${1#-j} ;;
    -n) programs=$2; shift ;;
    --first) first=$2; shift ;;
    --cases) cases=$2; shift ;;
    --avoid-known) avoid=--avoid-known ;;
    --timeout) timeout_s=$2; shift ;;
    --log) log=$2; shift ;;
    --work) work=$2; shift ;;
    --no-reduce) reduce=0 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "sweep.sh: unknown option $1" >&2; exit 2 ;;
    *) seeds+=("$1") ;;
  esac
  shift
done
if [[ ${#seeds[@]} == 0 ]]; then
  if [[ -z $programs ]]; then
    per_program=$([[ $mode == --surface ]] && echo "$cases" || echo 4)
    programs=$(((10000 + per_program - 1) / per_program))
  fi
  mapfile -t seeds < <(seq "$first" $((first + programs - 1)))
fi
keep_work=1
if [[ -z $work ]]; then
  work=$(mktemp -d /tmp/vmap_sweep.XXXXXX)
  keep_work=0
fi
mkdir -p "$work"
log=${log:-$work/sweep.log}
: > "$log"

# The compile and link lines of a differential program the build made (the same flags).
rule() { grep -A8 "^build tests/transform/$1" "$build/build.ninja" | grep -m1 "^  $2 = " | sed "s/^  $2 = //"; }
dir=CMakeFiles/transform_add_1d_rewritten.dir
export VMAP_SWEEP_FLAGS="$(rule $dir DEFINES) $(rule $dir FLAGS) $(rule $dir INCLUDES)"
export VMAP_SWEEP_LIBS=$(rule transform_add_1d_rewritten: LINK_LIBRARIES)
export VMAP_SWEEP_CXX=$(grep -m1 "^CMAKE_CXX_COMPILER:" "$build/CMakeCache.txt" | cut -d= -f2)
export VMAP_SWEEP_ROOT=$root VMAP_SWEEP_BUILD=$build VMAP_SWEEP_WORK=$work
export VMAP_SWEEP_MODE=$mode VMAP_SWEEP_CASES=$cases VMAP_SWEEP_AVOID=$avoid
export VMAP_SWEEP_TIMEOUT=$timeout_s VMAP_SWEEP_REDUCE=$reduce
for tool in transform/clang-vmap tests/transform/random/vmap_generate_program \
            tests/transform/vmap_differential_compare runtime/libvmap_runtime.a; do
  [[ -e $build/$tool ]] || { echo "sweep.sh: $build/$tool is not built" >&2; exit 2; }
done

started=$(date +%s)
echo "sweep: ${#seeds[@]} programs ($mode --cases=$cases $avoid), -j$jobs, timeout ${timeout_s}s, log $log"
printf '%s\n' "${seeds[@]}" | xargs -P "$jobs" -n 1 "$0" --worker | tee -a "$log"

# Counts, from the log's fields: `seed S: OUTCOME loops L refused R ...`.
awk -v seconds=$(($(date +%s) - started)) '
  { programs++; loops += $5; refused += $7; outcome[$3]++; failing += gsub(/; [A-Z_]+ /, "&") }
  END {
    printf "programs %d, loops %d (refused and left as written %d, rewritten and compared %d), %d s\n",
           programs, loops, refused, loops - refused, seconds
    printf "failures %d (each a case, with its kind, in the log)\n", failing
    for (o in outcome) printf "  %-12s %d\n", o, outcome[o]
  }' "$log"
bad=$(grep -cv ': \(agreed\|refused\) ' "$log")
if [[ $bad != 0 ]]; then
  echo "failing seeds ($bad): reproducers under $work/failures"
  grep -v ': \(agreed\|refused\) ' "$log" | cut -c1-200
elif [[ $keep_work == 0 ]]; then
  cp "$log" /tmp/vmap_sweep_last.log && rm -rf "$work" && echo "log: /tmp/vmap_sweep_last.log"
fi
[[ $bad == 0 ]]
