#!/usr/bin/env bash
# The whole test suite: set-up, Release build of everything, then every CTest test
# (runtime, rules, tool goldens and refusals, samples, the installed package).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${VMAP_BUILD_DIR:-$root/build/release}

VMAP_BUILD_DIR=$build_dir "$root/scripts/build.sh"
ctest --test-dir "$build_dir" --output-on-failure -j "${VMAP_JOBS:-2}"
