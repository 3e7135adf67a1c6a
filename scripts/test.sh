#!/usr/bin/env bash
# The whole test suite: set-up, build of everything, then every CTest test (runtime,
# rules, tool goldens and refusals, samples, the installed package).
#   scripts/test.sh              the Release build (what CI runs)
#   scripts/test.sh asan-ubsan   the same suite under AddressSanitizer + UBSan
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
preset=${1:-release}
build_dir=${VMAP_BUILD_DIR:-$root/build/$preset}

VMAP_PRESET=$preset VMAP_BUILD_DIR=$build_dir "$root/scripts/build.sh"
ctest --test-dir "$build_dir" --output-on-failure -j "${VMAP_JOBS:-2}"
