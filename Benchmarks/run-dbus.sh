#!/usr/bin/env bash
# Builds the D-Bus recorder fixture (release) and runs the D-Bus source benchmark (DBusBench/dbus-bench.py): a flood
# of signals on a private bus into the model, beside what dbus-monitor receives on the same bus.
# Usage: run-dbus.sh [RUNS] [SIGNALS]: a flood, then 2,000 signals at 500/s (CPU per signal at a trickle).
# Env: SWIFT (default swift).
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
# As `make install` builds: the Swift runtime linked in (see RELEASE_FLAGS in the Makefile).
release=(-c release --static-swift-stdlib)
"$swift" build "${release[@]}" --product mobiusd-fixture-dbus-recorder
bin=$("$swift" build "${release[@]}" --show-bin-path)
echo "machine: $(nproc) cores; uptime: $(uptime)"
/usr/bin/python3 Benchmarks/DBusBench/dbus-bench.py "$bin/mobiusd-fixture-dbus-recorder" --runs "${1:-3}" --signals "${2:-50000}"
/usr/bin/python3 Benchmarks/DBusBench/dbus-bench.py "$bin/mobiusd-fixture-dbus-recorder" --runs "${1:-3}" --signals 2000 --rate 500
echo "uptime after: $(uptime)"
