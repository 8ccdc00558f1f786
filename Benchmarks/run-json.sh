#!/usr/bin/env bash
# Runs the MobiusJSON benchmark RUNS times (each run measures MobiusJSON and JSONSerialization side by side) and
# prints the medians and the median of the per-run ratios.
# Usage: run-json.sh PATH/TO/mobius-json-bench [RUNS]
set -euo pipefail
bench=$1
runs=${2:-5}
results=$(for ((i = 0; i < runs; i++)); do "$bench" 200000 | grep '^bench '; done)
printf '%-22s %14s %18s %8s\n' benchmark "MobiusJSON/s" "JSONSerialization/s" ratio
for name in $(grep -o 'name=[^ ]*' <<<"$results" | sort -u | cut -d= -f2); do
  median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  rows=$(grep "name=$name " <<<"$results")
  ours=$(grep -o 'ours=[0-9]*' <<<"$rows" | cut -d= -f2 | median)
  foundation=$(grep -o 'foundation=[0-9]*' <<<"$rows" | cut -d= -f2 | median)
  ratio=$(grep -o 'ratio=[0-9.]*' <<<"$rows" | cut -d= -f2 | median)
  printf '%-22s %14s %18s %7.2fx\n' "$name" "$ours" "$foundation" "$ratio"
done
echo "target: parse and encode >= 4x JSONSerialization (medians of $runs runs, ratios from the same run)"
