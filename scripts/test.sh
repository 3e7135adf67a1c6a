#!/usr/bin/env bash
# The whole test suite: set-up, build of everything, then every CTest test (runtime,
# rules, tool goldens and refusals, samples, the installed package).
#   scripts/test.sh              the Release build
#   scripts/test.sh asan-ubsan   the runtime and rules suites under AddressSanitizer + UBSan
#                                (its own build folder, build/asan-ubsan; the tool is not built)
# CI (.ci/run) runs both.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
preset=${1:-release}
build_dir=${VMAP_BUILD_DIR:-$root/build/$preset}

if [[ $preset == asan-ubsan ]]; then
  # The first report fails its test; no leak is suppressed.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fi
VMAP_PRESET=$preset VMAP_BUILD_DIR=$build_dir "$root/scripts/build.sh"
ctest --test-dir "$build_dir" --output-on-failure -j "${VMAP_JOBS:-2}"
