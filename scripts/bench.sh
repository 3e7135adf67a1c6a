#!/usr/bin/env bash
# The samples' Google Benchmark, every build of every sample in one run: the per-example
# loop on our runtime, its clang-vmap rewrite, the plain C++ loops (samples/plain: the
# limit, Note [Plain C++ loops]) and, where LibTorch is installed, the same loop in
# LibTorch and the hand-batched LibTorch code (samples/torch_batched). Prints a Markdown
# table with the ratios (the one in BENCHMARKS.md). Threads: set OMP_NUM_THREADS
# (LibTorch follows it too; the table says which). VMAP_DEVICE=cuda runs every build on the
# GPU (--device cuda: inputs, outputs and the timed work there); a build that cannot use the
# device says why and its column stays empty. Extra arguments go to every benchmark binary.
# A second table times every form of every sample (samples/forms, Note [Forms of the seeds] in
# samples/CMakeLists.txt), rewritten, beside the sample's plain C++ loop and hand-batched
# LibTorch code from the same run, and names each sample's worst form.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${VMAP_BUILD_DIR:-$root/build/release}
device=${VMAP_DEVICE:-cpu}

VMAP_BUILD_DIR=$build_dir "$root/scripts/build.sh" \
  vmap_samples_bench_per_example vmap_samples_bench_batched vmap_samples_bench_plain \
  vmap_forms_bench_batched
variants=(per_example batched forms)
# The plain C++ loops (samples/plain) run on the CPU only: no column on a device.
[[ $device == cpu ]] && variants+=(plain)
read -ra torch_variants <"$build_dir/samples/torch_variants.txt"
if ((${#torch_variants[@]})); then
  VMAP_BUILD_DIR=$build_dir "$root/scripts/build.sh" \
    "${torch_variants[@]/#/vmap_samples_bench_}"
  variants+=("${torch_variants[@]}")
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)  # a shared machine: say how busy it was
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for variant in "${variants[@]}"; do
  code=0
  binary=vmap_samples_bench_$variant
  [[ $variant == forms ]] && binary=vmap_forms_bench_batched
  "$build_dir/samples/$binary" --benchmark_format=csv "$@" \
    --device "$device" >"$work/$variant" 2>"$work/$variant.log" || code=$?
  if ((code == 77)); then  # no usable device for this build: its column stays empty
    cat "$work/$variant.log" >&2
    : >"$work/$variant"
  elif ((code != 0)); then
    cat "$work/$variant.log" >&2
    exit "$code"
  fi
done

echo "device: $device, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}, $(nproc --all) cores, $(date -u +%F)," \
  "load average (1, 5, 15 min) $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo
# Both tables print times and ratios alike.
formats='
  function human(s) {
    if (s == "") return "-"
    if (s >= 1) return sprintf("%.2f s", s)
    if (s >= 1e-3) return sprintf("%.2f ms", s * 1e3)
    return sprintf("%.1f us", s * 1e6)
  }
  function ratio(a, b) {
    if (a == "" || b == "") return "-"
    return a / b >= 10 ? sprintf("%.0fx", a / b) : sprintf("%.2fx", a / b)
  }'
# CSV columns: name,iterations,real_time,cpu_time,time_unit,bytes_per_second,
# items_per_second,label,error_occurred,error_message,examples_run,examples_total
awk -F, "$formats"'
  FNR == 1 { next }
  $7 == "" { next }
  {
    variant = FILENAME; sub(/.*\//, "", variant)  # the CSV file: which build ran
    name = $1; gsub(/"/, "", name); sub(/\/real_time$/, "", name)
    gsub(/;/, ",", name)  # bench_main.cpp wrote commas as semicolons, for the CSV
    if (variant == "per_example") order[++n] = name
    seconds[variant, name] = $12 / $7  # one whole problem, from examples per second
  }
  END {
    print "| workload | per-example loop | rewritten | LibTorch loop | LibTorch hand-batched " \
          "| plain C++ | rewritten vs our loop | vs LibTorch loop (>= 100x) " \
          "| vs hand-batched (>= 1x) | rewritten / plain C++ |"
    print "|---|---|---|---|---|---|---|---|---|---|"
    for (k = 1; k <= n; k++) {
      name = order[k]
      ours = seconds["per_example", name]; rewritten = seconds["batched", name]
      loop = seconds["torch_loop", name]; batched = seconds["torch_batched", name]
      plain = seconds["plain", name]
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, human(ours),
             human(rewritten), human(loop), human(batched), human(plain),
             ratio(ours, rewritten), ratio(loop, rewritten), ratio(batched, rewritten),
             ratio(rewritten, plain)
    }
  }' "${variants[@]/#/$work/}"

# The forms the tool refused (left as written, --keep-going): their remarks, per sample.
refused=$work/refused
: >"$refused"
for remarks in "$build_dir"/samples/vmap/vmap_forms_*_batched/forms/*.vmap.yaml; do
  [[ -e $remarks ]] || continue
  sample=$(basename "$remarks" .vmap.yaml)
  awk -v sample="$sample" '
    /^--- / { missed = ($2 == "!Missed"); loop = 0; function_name = "" }
    missed && /^Name: *LoopNotBatched/ { loop = 1 }
    # "(anonymous namespace)::f", a lambda in f: "f(Tensor &)::(anonymous class)::operator()",
    # a template instance: "f<float>"
    missed && /^Function:/ {
      sub(/^Function: */, ""); gsub(/\047/, ""); sub(/^\(anonymous namespace\)::/, "")
      sub(/\(.*/, ""); sub(/<.*/, ""); function_name = $0
    }
    missed && loop && /- Reason:/ {
      sub(/.*- Reason: */, ""); sub(/^\047/, ""); sub(/\047$/, ""); gsub(/\047\047/, "\047")
      print sample "/" function_name "\t" $0
    }' "$remarks" >>"$refused"
done

echo
echo "Every form of every sample (samples/forms), rewritten; plain C++ and hand-batched LibTorch" \
  "from the same run. A miss: over 1.3x the plain C++ loop (2x for the 2000x2000x64 distance)" \
  "or slower than hand-batched LibTorch."
echo
awk -F'\t' -v refused_file="$refused" "$formats"'
  BEGIN {
    while ((getline line < refused_file) > 0) {
      split(line, field, "\t"); refused[field[1]] = field[2]
    }
    FS = ","
  }
  # The function of a form ("add_1d/through_a_local (float64)" -> "add_1d/through_a_local"),
  # as the remarks name it.
  function function_of(form,    key) {
    key = form; sub(/ \(.*$/, "", key); sub(/<.*$/, "", key)
    return key
  }
  FNR == 1 { next }
  $7 == "" { next }
  {
    variant = FILENAME; sub(/.*\//, "", variant)
    name = $1; gsub(/"/, "", name); sub(/\/real_time$/, "", name); gsub(/;/, ",", name)
    seconds = $12 / $7
    if (variant != "forms") { reference[variant, name] = seconds; next }
    split(name, part, " :: ")
    order[++n] = name; workload[name] = part[1]; form[name] = part[2]; time[name] = seconds
  }
  END {
    print "| workload | form | rewritten | plain C++ | LibTorch hand-batched " \
          "| rewritten / plain C++ | rewritten / hand-batched | |"
    print "|---|---|---|---|---|---|---|---|"
    for (k = 1; k <= n; k++) {
      name = order[k]; w = workload[name]
      plain = reference["plain", w]; torch = reference["torch_batched", w]
      limit = w ~ /2000x2000x64/ ? 2 : 1.3
      note = ""
      if (function_of(form[name]) in refused) note = "refused: " refused[function_of(form[name])]
      else if ((plain != "" && time[name] > limit * plain) || (torch != "" && time[name] > torch))
        note = "miss"
      printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", w, form[name], human(time[name]),
             human(plain), human(torch), ratio(time[name], plain), ratio(time[name], torch), note
      # The worst form: the largest ratio to the plain loop (to hand-batched LibTorch without one).
      base = plain != "" ? plain : torch
      if (base != "" && (!(w in worst) || time[name] / base > worst_ratio[w])) {
        if (!(w in worst)) workloads[++m] = w
        worst[w] = name; worst_ratio[w] = time[name] / base
      }
    }
    print ""
    print "| workload | worst form | rewritten | rewritten / plain C++ | rewritten / hand-batched |"
    print "|---|---|---|---|---|"
    for (k = 1; k <= m; k++) {
      w = workloads[k]; name = worst[w]
      printf "| %s | %s | %s | %s | %s |\n", w, form[name], human(time[name]),
             ratio(time[name], reference["plain", w]),
             ratio(time[name], reference["torch_batched", w])
    }
  }' "${variants[@]/#/$work/}"
