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
# The tool's differential and check-mode programs are build products too (issue 28): built
# here, past failures (a program the tool rewrites wrongly fails its own test), so the
# fixture tests that would build them find them built, however slow and busy the machine.
programs=()
for target in transform-differential-programs transform-check-programs; do
  cmake --build "$build_dir" --target help | grep -q "$target" && programs+=(--target "$target")
done
if ((${#programs[@]})); then
  keep_going=(-k)
  [[ -f $build_dir/build.ninja ]] && keep_going=(-k 0)
  cmake --build "$build_dir" -j "${VMAP_JOBS:-2}" "${programs[@]}" -- "${keep_going[@]}" ||
    echo "test.sh: some test programs did not build; their tests fail below" >&2
fi
ctest --test-dir "$build_dir" --output-on-failure -j "${VMAP_JOBS:-2}"
