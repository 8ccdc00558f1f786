#!/usr/bin/env bash
# Builds mobiusd and the door lock (release) and measures `replay` (docs/apps.md): a built-in app (the counter, both
# sides) over 1,000,000 journaled events, and an update plugin (the door lock's update.py on the Python SDK, batched,
# both sides) over 100,000; RUNS runs each, median events/s. Usage: run-replay.sh [RUNS]. Env: SWIFT (default swift).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
swift=${SWIFT:-swift}
# As `make install` builds: the Swift runtime linked in (see RELEASE_FLAGS in the Makefile).
release=(-c release --static-swift-stdlib)
for product in mobiusd door-lock; do
    "$swift" build "${release[@]}" --product "$product"
done
bin=$("$swift" build "${release[@]}" --show-bin-path)
echo "machine: $(nproc) cores; uptime: $(uptime)"
python3 Benchmarks/ReplayBench/replay_bench.py "$bin" "$runs" "$PWD/Examples/DoorLock/update.py"
echo "uptime after: $(uptime)"
