#!/usr/bin/env bash
# Builds the daemon's plugin benchmark (release) and runs it RUNS times per scenario: effects through a plugin
# (Swift SDK, Python SDK), update plugins one at a time and batched, next to the bare pipe round trip.
# Usage: run-plugin-daemon.sh [RUNS]. Env: SWIFT (default swift).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
swift=${SWIFT:-swift}
# As `make install` builds: the Swift runtime linked in (see RELEASE_FLAGS in the Makefile).
release=(-c release --static-swift-stdlib)
for product in mobiusd mobiusd-bench-relay mobiusd-bench-plugin mobiusd-plugin-bench; do
    "$swift" build "${release[@]}" --product "$product"
done
bin=$("$swift" build "${release[@]}" --show-bin-path)
echo "machine: $(nproc) cores; uptime: $(uptime)"
python3 Benchmarks/PluginDaemonBench/run.py "$bin" "$runs"
echo "uptime after: $(uptime)"
