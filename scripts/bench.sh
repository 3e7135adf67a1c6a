#!/usr/bin/env bash
# The samples' Google Benchmark, every build of every sample in one run: the per-example
# loop on our runtime, its clang-vmap rewrite, the plain C++ loops (samples/plain: the
# limit, Note [Plain C++ loops]) and, where LibTorch is installed, the same loop in
# LibTorch and the hand-batched LibTorch code (samples/torch_batched). Prints a Markdown
# table with the ratios (the one in BENCHMARKS.md). Threads: set OMP_NUM_THREADS
# (LibTorch follows it too; the table says which). VMAP_DEVICE=cuda runs every build on the
# GPU (--device cuda: inputs, outputs and the timed work there); a build that cannot use the
# device says why and its column stays empty. Extra arguments go to every benchmark binary.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${VMAP_BUILD_DIR:-$root/build/release}
device=${VMAP_DEVICE:-cpu}

VMAP_BUILD_DIR=$build_dir "$root/scripts/build.sh" \
  vmap_samples_bench_per_example vmap_samples_bench_batched vmap_samples_bench_plain
variants=(per_example batched)
# The plain C++ loops (samples/plain) run on the CPU only: no column on a device.
[[ $device == cpu ]] && variants+=(plain)
read -ra torch_variants <"$build_dir/samples/torch_variants.txt"
if ((${#torch_variants[@]})); then
  VMAP_BUILD_DIR=$build_dir "$root/scripts/build.sh" \
    "${torch_variants[@]/#/vmap_samples_bench_}"
  variants+=("${torch_variants[@]}")
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)  # a shared machine: say how busy it was
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for variant in "${variants[@]}"; do
  code=0
  "$build_dir/samples/vmap_samples_bench_$variant" --benchmark_format=csv "$@" \
    --device "$device" >"$work/$variant" 2>"$work/$variant.log" || code=$?
  if ((code == 77)); then  # no usable device for this build: its column stays empty
    cat "$work/$variant.log" >&2
    : >"$work/$variant"
  elif ((code != 0)); then
    cat "$work/$variant.log" >&2
    exit "$code"
  fi
done

echo "device: $device, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}, $(nproc --all) cores, $(date -u +%F)," \
  "load average (1, 5, 15 min) $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo
# CSV columns: name,iterations,real_time,cpu_time,time_unit,bytes_per_second,
# items_per_second,label,error_occurred,error_message,examples_run,examples_total
awk -F, '
  function human(s) {
    if (s == "") return "-"
    if (s >= 1) return sprintf("%.2f s", s)
    if (s >= 1e-3) return sprintf("%.2f ms", s * 1e3)
    return sprintf("%.1f us", s * 1e6)
  }
  function ratio(a, b) {
    if (a == "" || b == "") return "-"
    return a / b >= 10 ? sprintf("%.0fx", a / b) : sprintf("%.2fx", a / b)
  }
  FNR == 1 { next }
  $7 == "" { next }
  {
    variant = FILENAME; sub(/.*\//, "", variant)  # the CSV file: which build ran
    name = $1; gsub(/"/, "", name); sub(/\/real_time$/, "", name)
    gsub(/;/, ",", name)  # bench_main.cpp wrote commas as semicolons, for the CSV
    if (variant == "per_example") order[++n] = name
    seconds[variant, name] = $12 / $7  # one whole problem, from examples per second
  }
  END {
    print "| workload | per-example loop | rewritten | LibTorch loop | LibTorch hand-batched " \
          "| plain C++ | rewritten vs our loop | vs LibTorch loop (>= 100x) " \
          "| vs hand-batched (>= 1x) | rewritten / plain C++ |"
    print "|---|---|---|---|---|---|---|---|---|---|"
    for (k = 1; k <= n; k++) {
      name = order[k]
      ours = seconds["per_example", name]; rewritten = seconds["batched", name]
      loop = seconds["torch_loop", name]; batched = seconds["torch_batched", name]
      plain = seconds["plain", name]
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, human(ours),
             human(rewritten), human(loop), human(batched), human(plain),
             ratio(ours, rewritten), ratio(loop, rewritten), ratio(batched, rewritten),
             ratio(rewritten, plain)
    }
  }' "${variants[@]/#/$work/}"
