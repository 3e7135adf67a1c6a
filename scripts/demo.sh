#!/usr/bin/env bash
# The main job: set-up, Release build, then every seed sample: the per-example loop as
# written and its clang-vmap rewrite, run side by side, with one rewrite's diff and a
# table of times, speedups and the largest disagreement.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${VMAP_BUILD_DIR:-$root/build/release}
samples_dir=$build_dir/samples

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

echo
echo "=== Per-example loop vs. its clang-vmap rewrite (OMP_NUM_THREADS=${OMP_NUM_THREADS:-all cores}) ==="
printf '| %-44s | %28s | %10s | %9s | %9s |\n' workload per-example batched speedup "max error"
printf '|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..46})" "$(printf -- '-%.0s' {1..30})" \
  "$(printf -- '-%.0s' {1..12})" "$(printf -- '-%.0s' {1..11})" "$(printf -- '-%.0s' {1..11})"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for sample in "${samples[@]}"; do
  per_example=$samples_dir/${sample}_per_example
  batched=$samples_dir/${sample}_batched
  if [[ ! -x $per_example ]]; then
    printf '| %-44s | %28s |\n' "$sample" "not built"
    continue
  fi
  "$per_example" --save "$work/$sample" >"$work/$sample.log" || { status=1; continue; }
  if [[ -x $batched ]]; then
    "$batched" --compare "$work/$sample" || status=1
  else
    cat "$work/$sample.log"  # its rows, with the batched columns empty
  fi
done
echo
echo "per-example [n/N]: timed on the first n of N examples and scaled to N (each example"
echo "costs the same). max error: largest |batched - per-example| / max(|per-example|, 1)."
exit $status
