#!/usr/bin/env bash
# The plugin SDKs over pipes, without the daemon: the bare pipe round trip (one process pair ping-pong), effects/s
# of the Swift SDK fixture (64 in flight and one at a time) and of the Python SDK fixture, and update events/s one
# at a time and in batches of 1024. Prints the median of RUNS runs of each.
# Usage: run-plugin.sh [RUNS]   (SWIFT may name the swift binary)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
swift=${SWIFT:-swift}
# As `make install` builds: the Swift runtime linked in (see RELEASE_FLAGS in the Makefile).
release=(-c release --static-swift-stdlib)
"$swift" build "${release[@]}" --product mobiusd-plugin-bench >/dev/null
"$swift" build "${release[@]}" --product mobiusd-fixture-plugin >/dev/null
bin=$("$swift" build "${release[@]}" --show-bin-path)
swift_plugin="$bin/mobiusd-fixture-plugin"
python_plugin="Plugins/sdk/python/fixture_plugin.py"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
row() { # label, bench arguments...
  local label=$1
  shift
  local rate
  rate=$(for ((i = 0; i < runs; i++)); do "$bin/mobiusd-plugin-bench" "$@" | sed -n 's/.* = \([0-9]*\) \/s$/\1/p'; done | median)
  printf '%-52s %10s /s\n' "$label" "$rate"
}
row "pipe round trips (one process pair)" pipe 100000
row "Swift SDK effects, 64 in flight" effects 200000 64 -- "$swift_plugin"
row "Swift SDK effects, one at a time" effects 20000 1 -- "$swift_plugin"
row "Python SDK effects, 64 in flight" effects 50000 64 -- "$python_plugin"
row "Python SDK effects, one at a time" effects 10000 1 -- "$python_plugin"
row "Swift SDK update events, one at a time" updates 20000 1 -- "$swift_plugin"
row "Swift SDK update events, updateBatch of 1024" updates 1000000 1024 -- "$swift_plugin"
row "Python SDK update events, one at a time" updates 10000 1 -- "$python_plugin"
row "Python SDK update events, updateBatch of 1024" updates 200000 1024 -- "$python_plugin"
echo "medians of $runs runs; no daemon in between (see Benchmarks/DaemonBench for effects through mobiusd)"
