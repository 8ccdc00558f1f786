#!/usr/bin/env bash
# Runs each library benchmark scenario in its own process RUNS times and prints the medians.
# Usage: run-library.sh PATH/TO/mobius-bench [RUNS]
set -euo pipefail
bench=$1
runs=${2:-5}
events=1000000
printf '%-18s %14s %14s %12s\n' scenario "median ev/s" "target ev/s" "peak RSS MB"
for scenario in loop roundtrip roundtrip-mirror controller; do
  rates=(); rss=()
  for ((i = 0; i < runs; i++)); do
    line=$("$bench" "$scenario" "$events")
    rates+=("$(sed -E 's/.*"perSecond":([0-9]+).*/\1/' <<<"$line")")
    rss+=("$(sed -E 's/.*"peakRSSKB":([0-9]+).*/\1/' <<<"$line")")
  done
  median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  case $scenario in
    loop) target=5000000 ;; roundtrip) target=1000000 ;; controller) target=1000000 ;; *) target=- ;;
  esac
  printf '%-18s %14s %14s %12.1f\n' "$scenario" "$(median "${rates[@]}")" "$target" \
    "$(awk -v kb="$(median "${rss[@]}")" 'BEGIN {print kb / 1024}')"
done
echo "scenarios: loop = trivial Int counter, events dispatched on one thread;"
echo "  roundtrip = event -> effect -> EffectRouter (== match) -> toEvent -> event;"
echo "  roundtrip-mirror = same through a routeCase with payload (Mirror matcher);"
echo "  controller = one producer thread -> MobiusController (bounded mailbox) -> loop queue; RSS target < 30 MB."
