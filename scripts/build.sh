#!/usr/bin/env bash
# Set-up, then configure and build a CMake preset (default: release; Ninja, 2 jobs): the
# whole project, or the given targets. The build folder is build/<preset>, or
# $VMAP_BUILD_DIR; VMAP_KEEP_GOING=1 builds what it can past a failure.
# Used by demo.sh, test.sh and bench.sh.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
preset=${VMAP_PRESET:-release}
build_dir=${VMAP_BUILD_DIR:-$root/build/$preset}
jobs=${VMAP_JOBS:-2}

"$root/scripts/setup.sh"
(cd "$root" && cmake --preset "$preset" -B "$build_dir" >/dev/null)
targets=()
for target in "$@"; do targets+=(--target "$target"); done
keep_going=()
[[ ${VMAP_KEEP_GOING:-0} == 1 ]] && keep_going=(-- -k 0)
cmake --build "$build_dir" -j "$jobs" "${targets[@]}" "${keep_going[@]}"
