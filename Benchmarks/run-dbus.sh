#!/usr/bin/env bash
# Builds the D-Bus recorder fixture and mobiusd (release) and runs the D-Bus benchmarks: the sources'
# (DBusBench/dbus-bench.py: a flood of signals on a private bus into the model, beside what dbus-monitor receives on
# the same bus) and the model on D-Bus (DBusBench/expose-bench.py: Send round trips and PropertiesChanged latency next
# to the socket's).
# Usage: run-dbus.sh [RUNS] [SIGNALS]: a flood, then 2,000 signals at 500/s (CPU per signal at a trickle), then expose.
# Env: SWIFT (default swift).
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
# As `make install` builds: the Swift runtime linked in (see RELEASE_FLAGS in the Makefile).
release=(-c release --static-swift-stdlib)
"$swift" build "${release[@]}" --product mobiusd-fixture-dbus-recorder
"$swift" build "${release[@]}" --product mobiusd
bin=$("$swift" build "${release[@]}" --show-bin-path)
echo "machine: $(nproc) cores; uptime: $(uptime)"
/usr/bin/python3 Benchmarks/DBusBench/dbus-bench.py "$bin/mobiusd-fixture-dbus-recorder" --runs "${1:-3}" --signals "${2:-50000}"
/usr/bin/python3 Benchmarks/DBusBench/dbus-bench.py "$bin/mobiusd-fixture-dbus-recorder" --runs "${1:-3}" --signals 2000 --rate 500
/usr/bin/python3 Benchmarks/DBusBench/expose-bench.py "$bin/mobiusd" --runs "${1:-3}"
echo "uptime after: $(uptime)"
