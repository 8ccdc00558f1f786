#!/usr/bin/env bash
# Builds mobiusd and mobiusd-systemd-bench (release) and measures the systemd side: spawn to READY=1 and the CPU of
# the watchdog at idle. Usage: run-systemd.sh [RUNS] [--idle-seconds S]. Env: SWIFT (default swift).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
swift=${SWIFT:-swift}
# As `make install` builds: the Swift runtime linked in (see RELEASE_FLAGS in the Makefile).
release=(-c release --static-swift-stdlib)
"$swift" build "${release[@]}" --product mobiusd
"$swift" build "${release[@]}" --product mobiusd-systemd-bench
bin=$("$swift" build "${release[@]}" --show-bin-path)
echo "machine: $(nproc) cores; uptime: $(uptime)"
"$bin/mobiusd-systemd-bench" --mobiusd "$bin/mobiusd" --runs "$runs" "$@"
