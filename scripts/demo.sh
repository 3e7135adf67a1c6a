#!/usr/bin/env bash
# The main job: set-up, Release build, then every seed sample: the per-example loop as
# written and its clang-vmap rewrite, run side by side, with one rewrite's diff and a
# table of times, speedups and the largest disagreement. Where LibTorch is installed, the
# table also has the same loops in LibTorch and the hand-batched LibTorch code.
# VMAP_DEVICE=cuda runs every build on the GPU (inputs, outputs and the timed work there;
# --device cuda); a build that cannot use the device says why and leaves its column empty.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${VMAP_BUILD_DIR:-$root/build/release}
samples_dir=$build_dir/samples
device=${VMAP_DEVICE:-cpu}

# A sample whose rewrite does not build yet must not hide the others: keep going, then
# show what was built.
VMAP_BUILD_DIR=$build_dir VMAP_KEEP_GOING=1 "$root/scripts/build.sh" vmap_samples || \
  echo "demo: some samples did not build (errors above); running the ones that did" >&2

mapfile -t samples <"$samples_dir/samples.txt"
diff_file=$samples_dir/vmap/vmap_sample_batch_gather_batched/batch_gather.vmap.diff
if [[ -s $diff_file ]]; then
  echo
  echo "=== What clang-vmap does to samples/batch_gather.cpp ==="
  cat "$diff_file"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
# Each run appends "name, seconds, max error, examples run, examples" to its record file.
run() {  # run RECORD_FILE PROGRAM ARGS...: a failure is shown and fails the demo
  local record=$1 program=$2 code=0
  shift 2
  [[ -x $program ]] || return 0
  "$program" "$@" --device "$device" --record "$work/$record" >"$work/log" 2>&1 || code=$?
  ((code == 0)) && return 0
  cat "$work/log"
  ((code == 77)) || status=1  # 77: no usable device for this build, said in the log
}
for sample in "${samples[@]}"; do
  run per_example "$samples_dir/${sample}_per_example" --save "$work/$sample"
  [[ -s $work/$sample ]] && run batched "$samples_dir/${sample}_batched" --compare "$work/$sample"
  # The plain C++ loop (samples/plain), on the CPU only.
  [[ -s $work/$sample && $device == cpu ]] &&
    run plain "$samples_dir/${sample}_plain" --compare "$work/$sample"
done
# LibTorch's builds (where it is installed) hold every sample: the loop saves, the
# hand-batched code must agree.
if [[ -n $(<"$samples_dir/torch_variants.txt") ]]; then
  run torch_loop "$samples_dir/samples_torch_loop" --save "$work/torch.reference"
  [[ -s $work/torch.reference ]] &&
    run torch_batched "$samples_dir/samples_torch_batched" --compare "$work/torch.reference"
fi

echo
echo "=== Per-example loop vs. its clang-vmap rewrite, on $device (OMP_NUM_THREADS=${OMP_NUM_THREADS:-all cores}) ==="
"$root/scripts/sample_table.sh" "$work"
echo
echo "per-example [n/N]: timed on the first n of N examples and scaled to N (each example"
echo "costs the same). max error: largest |batched - per-example| / max(|per-example|, 1)."
if [[ -s $work/plain ]]; then
  echo "plain C++: the same workload as plain C++ loops (samples/plain: raw pointers, -O3,"
  echo "OpenMP, sgemm for the matrix products), checked against the per-example loop;"
  echo "batched / plain: how many times longer the rewritten code takes (1.00x: at the limit)."
fi
if [[ -s $work/torch_loop ]]; then
  echo "LibTorch loop: the same sample source built against LibTorch (samples/torch_shim);"
  echo "LibTorch batch: samples/torch_batched, checked against that loop. vs: how many times"
  echo "faster the rewritten code runs."
fi
exit $status
