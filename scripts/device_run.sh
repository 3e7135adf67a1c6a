#!/usr/bin/env bash
# Runs on a GPU machine: unpacks .device/bundle.tar.xz (scripts/device_bundle.sh) and runs the
# CUDA device tests, the CUDA benchmarks, and every sample on the device. Results go to $OUT
# (what the device tool brings back) or build/device-results/. Exit status 1 when a test or a
# sample check failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/build/device-results}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xJf "$root/.device/bundle.tar.xz" -C "$work" || exit 1
cuda_home=${CUDA_HOME:-/usr/local/cuda}
export LD_LIBRARY_PATH=$work/lib:$cuda_home/lib64:$cuda_home/lib:${LD_LIBRARY_PATH:-}
status=0

{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  nproc; } >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

echo "=== device tests (the CUDA cases must pass, not skip) ==="
for tests in vmap_device_tests vmap_device_batched_tests; do
  "$work/bin/$tests" >"$out/$tests.log" 2>&1 || status=1
  echo "$tests:"
  grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ test|^\[  FAILED  \] ' "$out/$tests.log"
  if grep -q -i -E 'SKIPPED.*/cuda' "$out/$tests.log"; then
    echo "device_run: the CUDA cases of $tests were skipped: no usable device here" >&2
    exit 1
  fi
done

echo "=== CUDA benchmarks ==="
"$work/bin/vmap_cuda_bench" --benchmark_min_time=0.2 --benchmark_out="$out/cuda_bench.json" \
  --benchmark_out_format=json 2>&1 | tee "$out/cuda_bench.txt" || status=1

echo "=== samples on the device: the per-example loop vs its rewrite, both on CUDA ==="
mapfile -t samples <"$work/samples.txt"
for sample in "${samples[@]}"; do
  # The rewrite on the device must agree with the loop on the CPU ...
  "$work/bin/${sample}_per_example" --save "$work/$sample.cpu" >/dev/null &&
    "$work/bin/${sample}_batched" --device cuda --compare "$work/$sample.cpu" --check-only \
      >>"$out/samples.log" 2>&1 ||
    { echo "device_run: $sample on CUDA disagrees with the CPU loop" >&2; status=1; }
  # ... and is timed against the same loop on the device.
  "$work/bin/${sample}_per_example" --device cuda --save "$work/$sample.cuda" \
    --record "$work/per_example" >>"$out/samples.log" 2>&1 &&
    "$work/bin/${sample}_batched" --device cuda --compare "$work/$sample.cuda" \
      --record "$work/batched" >>"$out/samples.log" 2>&1 ||
    { echo "device_run: $sample failed on CUDA" >&2; status=1; }
done
"$root/scripts/sample_table.sh" "$work" | tee "$out/samples.txt"
exit $status
