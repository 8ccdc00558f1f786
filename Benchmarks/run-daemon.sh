#!/usr/bin/env bash
# Builds mobiusd and mobiusd-bench (release) and runs the daemon benchmarks: mobiusd and a redis-server the
# benchmark starts itself, side by side, RUNS times each; prints a table of medians and ratios, then JSON lines.
# Usage: run-daemon.sh [RUNS] [extra mobiusd-bench options...]
# Env: SWIFT (default swift), SCRATCH (a --scratch-path when the shared .build is busy or broken).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
swift=${SWIFT:-swift}
flags=(-c release)
if [[ -n ${SCRATCH:-} ]]; then flags+=(--scratch-path "$SCRATCH"); fi
command -v redis-server >/dev/null || { echo "run-daemon.sh: redis-server not found; run: make deps" >&2; exit 1; }
"$swift" build "${flags[@]}" --product mobiusd
"$swift" build "${flags[@]}" --product mobiusd-bench
bin=$("$swift" build "${flags[@]}" --show-bin-path)
echo "machine: $(nproc) cores; uptime: $(uptime)"
"$bin/mobiusd-bench" --mobiusd "$bin/mobiusd" --runs "$runs" "$@"
echo "uptime after: $(uptime)"
