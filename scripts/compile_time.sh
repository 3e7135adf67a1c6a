#!/usr/bin/env bash
# Compile time of every sample, as issue 13 measures it: the tool (clang-vmap rewriting the
# sample) against `clang++ -fsyntax-only` on the same file, and the project's compiler on the
# rewritten file against the file as written, each with the build's own command line (from
# build/release/compile_commands.json: the per-example object as written, the batched object
# rewritten). Times are CPU seconds (user + system) of one process, the least of
# VMAP_COMPILE_RUNS runs (default 3): on a shared machine the fastest run is the one least
# disturbed. Prints a Markdown table (the one in BENCHMARKS.md) with the load average.
# Arguments: the samples to time (default: all).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${VMAP_BUILD_DIR:-$root/build/release}
runs=${VMAP_COMPILE_RUNS:-3}
clangxx=${VMAP_CLANGXX:-$(command -v clang++-19 || command -v clang++)}

VMAP_BUILD_DIR=$build_dir "$root/scripts/build.sh" clang-vmap vmap_samples_bench_batched >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One line per sample: its name, then the as-written and rewritten compile commands
# (JSON arrays), read from the compilation database.
python3 - "$build_dir/compile_commands.json" "$root/samples" "$@" >"$work/commands" <<'EOF'
import json, os, shlex, sys
database, samples, chosen = sys.argv[1], sys.argv[2], set(sys.argv[3:])
written, rewritten = {}, {}
for entry in json.load(open(database)):
    arguments = entry.get("arguments") or shlex.split(entry["command"])
    path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    name = os.path.basename(path).split(".")[0]
    if path == os.path.join(samples, name + ".cpp") and "_per_example.dir" in " ".join(arguments):
        written[name] = (entry["directory"], arguments)
    elif path.endswith(f"vmap_sample_{name}_batched/{name}.vmap.cpp"):
        rewritten[name] = (entry["directory"], arguments)
for name in sorted(written.keys() & rewritten.keys()):
    if chosen and name not in chosen:
        continue
    print(json.dumps([name, written[name], rewritten[name]]))
EOF

# cpu_seconds DIR COMMAND...: the least user + system time of $runs runs.
cpu_seconds() {
  local dir=$1 best="" t
  shift
  for ((run = 0; run < runs; ++run)); do
    if ! (cd "$dir" && /usr/bin/time -o "$work/time" -f "%U %S" "$@" >/dev/null 2>"$work/stderr"); then
      cat "$work/stderr" >&2
      return 1
    fi
    t=$(awk '{ printf "%.3f", $1 + $2 }' "$work/time")
    if [[ -z $best ]] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
  done
  echo "$best"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rows=()
while read -r line; do
  # The two command lines (directory first) and the tool's flags, as NUL-separated lists.
  python3 - "$line" "$work" <<'EOF'
import json, sys
name, (wdir, wargs), (rdir, rargs) = json.loads(sys.argv[1])
work = sys.argv[2]
def strip_output(args):  # the object goes nowhere: only the time counts
    out, skip = [], False
    for a in args:
        if skip: skip = False; continue
        if a == "-o": skip = True; continue
        out.append(a)
    return out + ["-o", "/dev/null"]
flags = [a for a in wargs[1:] if a not in ("-c",)]
source = wargs[-1]
tool_flags, skip = [], False
for a in flags:
    if skip: skip = False; continue
    if a == "-o": skip = True; continue
    if a == source: continue
    tool_flags.append(a)
open(f"{work}/written", "w").write("\0".join([wdir] + strip_output(wargs)))
open(f"{work}/rewritten", "w").write("\0".join([rdir] + strip_output(rargs)))
open(f"{work}/tool_flags", "w").write("\0".join(tool_flags))
open(f"{work}/source", "w").write(source)
open(f"{work}/name", "w").write(name)
EOF
  mapfile -d '' written <"$work/written"
  mapfile -d '' rewritten <"$work/rewritten"
  mapfile -d '' tool_flags <"$work/tool_flags"
  source_file=$(cat "$work/source")
  name=$(cat "$work/name")
  tool=$(cpu_seconds "${written[0]}" "$build_dir/transform/clang-vmap" "$source_file" \
    -o "$work/out.vmap.cpp" -- "${tool_flags[@]}")
  syntax=$(cpu_seconds "${written[0]}" "$clangxx" -fsyntax-only "${tool_flags[@]}" "$source_file")
  original=$(cpu_seconds "${written[@]}")
  rewrite=$(cpu_seconds "${rewritten[@]}")
  rows+=("$name $tool $syntax $original $rewrite")
done <"$work/commands"

echo "$(nproc --all) cores, $(date -u +%F), $runs runs each (least CPU time)," \
  "load average (1, 5, 15 min) $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo
printf '%s\n' "${rows[@]}" | awk -v compiler="$(basename "${written[1]}")" '
  BEGIN {
    print "| sample | clang-vmap | clang++ -fsyntax-only | tool / syntax | " compiler \
          " as written | " compiler " rewritten | rewritten / written |"
    print "|---|---|---|---|---|---|---|"
  }
  { printf "| %s | %.2f s | %.2f s | %.2fx | %.2f s | %.2f s | %.2fx |\n",
           $1, $2, $3, $2 / $3, $4, $5, $5 / $4 }'
