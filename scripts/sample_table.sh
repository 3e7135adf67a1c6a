#!/usr/bin/env bash
# Prints the samples table from a folder of record files (the driver's --record): per_example
# and batched, plain (the plain C++ loops, samples/plain) where they ran, and torch_loop /
# torch_batched where LibTorch's builds ran. Each line of a
# record: name, seconds, max error, examples run, examples (tab separated). Used by demo.sh
# and device_run.sh.
set -euo pipefail
records=$1
touch "$records"/{per_example,batched,plain,torch_loop,torch_batched}  # awk reads all five
awk -F'\t' '
  function human(s) {
    if (s == "") return "-"
    if (s >= 1) return sprintf("%.2f s", s)
    if (s >= 1e-3) return sprintf("%.2f ms", s * 1e3)
    if (s >= 1e-6) return sprintf("%.1f us", s * 1e6)
    return sprintf("%.0f ns", s * 1e9)
  }
  function ratio(a, b) {
    if (a == "" || b == "") return "-"
    return a / b >= 10 ? sprintf("%.0fx", a / b) : sprintf("%.2fx", a / b)
  }
  function prefix(v, name) {  # "[n/N]" when the loop ran n of N examples
    return count[v, name] < examples[v, name] ? \
      sprintf(" [%d/%d]", count[v, name], examples[v, name]) : ""
  }
  {
    variant = FILENAME; sub(/.*\//, "", variant)  # the record file: which build ran
    if (variant == "per_example") order[++n] = $1
    if (variant == "torch_loop") libtorch = 1
    if (variant == "plain") has_plain = 1
    seconds[variant, $1] = $2; error[variant, $1] = $3
    count[variant, $1] = $4; examples[variant, $1] = $5
  }
  END {
    format = "| %-44s | %26s | %10s | %7s | %9s |"
    torch_format = " %26s | %12s | %13s | %16s |"
    plain_format = " %10s | %15s |"
    printf format, "workload", "per-example", "batched", "speedup", "max error"
    if (libtorch)
      printf torch_format, "LibTorch loop", "LibTorch batch", "vs torch loop", "vs torch batched"
    if (has_plain) printf plain_format, "plain C++", "batched / plain"
    printf "\n|%s|%s|%s|%s|%s|", "----------------------------------------------", \
      "----------------------------", "------------", "---------", "-----------"
    if (libtorch)
      printf "%s|%s|%s|%s|", "----------------------------", "--------------", \
        "---------------", "------------------"
    if (has_plain) printf "%s|%s|", "------------", "-----------------"
    printf "\n"
    for (k = 1; k <= n; k++) {
      name = order[k]
      ours = seconds["per_example", name]; rewritten = seconds["batched", name]
      printf format, name, human(ours) prefix("per_example", name), human(rewritten),
             ratio(ours, rewritten),
             rewritten == "" ? "-" : sprintf("%.1e", error["batched", name])
      if (libtorch) {
        loop = seconds["torch_loop", name]; batched = seconds["torch_batched", name]
        printf torch_format, human(loop) prefix("torch_loop", name), human(batched),
               ratio(loop, rewritten),
               ratio(batched, rewritten)
      }
      if (has_plain) {
        plain = seconds["plain", name]
        printf plain_format, human(plain), ratio(rewritten, plain)
      }
      printf "\n"
    }
  }' "$records"/{per_example,batched,plain,torch_loop,torch_batched}
