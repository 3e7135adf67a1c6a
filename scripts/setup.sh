#!/usr/bin/env bash
# Installs what clang-vmap needs on Debian 12, with apt-get, and only what is missing:
# when everything is there it is a fast no-op (no apt-get call, no root needed).
# nvcc is optional: the CUDA parts build when /usr/local/cuda/bin/nvcc (or nvcc on PATH) exists.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  # Clang/LLVM 19 LibTooling for the tool, FileCheck for its tests
  clang-19 libclang-19-dev libclang-cpp19-dev llvm-19-dev llvm-19-tools
  # LLVM's opt-viewer (llvm-19-tools) renders the tool's remarks with these
  python3-yaml python3-pygments
  # runtime: SIMD, BLAS (OpenMP flavour: one threading system with our OpenMP loops)
  libhwy-dev libopenblas-openmp-dev
  # DLPack 0.6's header: vmap::from_dlpack / to_dlpack (PyTorch, CuPy, JAX interop)
  libdlpack-dev
  # tests, benchmarks
  libgtest-dev libbenchmark-dev
  # LibTorch 1.13 (CPU): the peer tests and the samples' LibTorch columns (~650 MB; the
  # build leaves them out, and the peer tests report Skipped, where it is missing)
  libtorch-dev
  # PyTorch (Python, on the same LibTorch, ~50 MB more) and pybind11: the PyTorch interop
  # sample (samples/interop, test sample.torch_module; Skipped without them)
  python3-torch pybind11-dev python3-dev
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2>/dev/null || true)
  [[ "$status" == ii* ]] || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
as_root=()
if ((EUID != 0)); then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
