#!/usr/bin/env bash
# Packs the CUDA checks for a GPU machine that has the CUDA toolkit but none of our other
# dependencies and no network (the lent GPU machines; README, "On a GPU"): the device tests,
# the CUDA benchmarks and every sample as written and rewritten, built here and stripped,
# with the shared libraries they load that are neither the C/C++ runtime's nor CUDA's.
# One solid xz archive, .device/bundle.tar.xz: the executables share their CUDA kernels, which
# the archive then stores about once. scripts/device_run.sh unpacks and runs it there.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${VMAP_BUILD_DIR:-$root/build/release}

VMAP_BUILD_DIR=$build_dir "$root/scripts/build.sh" vmap_device_tests vmap_device_batched_tests \
  vmap_cuda_bench vmap_samples || {
  echo "device_bundle: the build failed; the bundle needs nvcc and Google Benchmark" >&2
  exit 1
}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/bin" "$stage/lib"
cp "$build_dir/tests/cuda/vmap_device_tests" "$build_dir/tests/rules/vmap_device_batched_tests" \
   "$build_dir/runtime/cuda/vmap_cuda_bench" "$stage/bin"
cp "$build_dir/samples/samples.txt" "$stage"
mapfile -t samples <"$build_dir/samples/samples.txt"
for sample in "${samples[@]}"; do
  cp "$build_dir/samples/${sample}_per_example" "$build_dir/samples/${sample}_batched" "$stage/bin"
done
strip "$stage"/bin/*
# Loaded libraries, less those every Linux has (libc, libm, libstdc++, ...) and CUDA's own (NVRTC too),
# which must be the GPU machine's (they match its driver).
ldd "$stage"/bin/* | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
  grep -v -E '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s)\.so|/libcu|/libnvrtc' |
  while read -r library; do cp -L "$library" "$stage/lib"; done

mkdir -p "$root/.device"
tar -C "$stage" -c . | xz -T2 -6 --lzma2=preset=6,dict=256MiB >"$root/.device/bundle.tar.xz"
echo "device_bundle: $(du -h "$root/.device/bundle.tar.xz" | cut -f1) in .device/bundle.tar.xz" \
     "($(ls "$stage/bin" | wc -l) executables, libraries: $(ls "$stage/lib" | tr '\n' ' '))"
