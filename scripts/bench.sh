#!/usr/bin/env bash
# The samples' Google Benchmark, per-example build against rewritten build, in one run:
# prints a Markdown table (the one in BENCHMARKS.md). Threads: set OMP_NUM_THREADS (the
# table in BENCHMARKS.md says which). Extra arguments go to both benchmark binaries.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${VMAP_BUILD_DIR:-$root/build/release}

VMAP_BUILD_DIR=$build_dir "$root/scripts/build.sh" \
  vmap_samples_bench_per_example vmap_samples_bench_batched
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for variant in per_example batched; do
  "$build_dir/samples/vmap_samples_bench_$variant" --benchmark_format=csv "$@" \
    >"$work/$variant.csv" 2>"$work/$variant.log"
done

echo "OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}, $(nproc) cores, $(date -u +%F)"
echo
# CSV columns: name,iterations,real_time,cpu_time,time_unit,bytes_per_second,
# items_per_second,label,error_occurred,error_message,examples_run,examples_total
awk -F, '
  function human(s) {
    if (s >= 1) return sprintf("%.2f s", s)
    if (s >= 1e-3) return sprintf("%.2f ms", s * 1e3)
    return sprintf("%.1f us", s * 1e6)
  }
  FNR == 1 { variant++; next }
  $7 == "" { next }
  {
    name = $1; gsub(/"/, "", name)
    seconds = $12 / $7  # one whole problem, from examples per second
    if (variant == 1) { order[++n] = name; per_example[name] = seconds }
    else batched[name] = seconds
  }
  END {
    print "| workload | per-example loop | rewritten (batched) | speedup |"
    print "|---|---|---|---|"
    for (k = 1; k <= n; k++) {
      name = order[k]
      if (!(name in batched)) { printf "| %s | %s | - | - |\n", name, human(per_example[name]); continue }
      printf "| %s | %s | %s | %.0fx |\n", name, human(per_example[name]),
             human(batched[name]), per_example[name] / batched[name]
    }
  }' "$work/per_example.csv" "$work/batched.csv"
