#!/usr/bin/env bash
# Builds mobiusd and mobiusd-bench (release) and runs the daemon benchmarks: mobiusd and a redis-server the
# benchmark starts itself, side by side, RUNS times each; prints a table of medians and ratios, then JSON lines.
# Usage: run-daemon.sh [RUNS] [extra mobiusd-bench options, e.g. --scenarios paced,idle --mobiusd PATH...]
# Env: SWIFT (default swift), SCRATCH (a --scratch-path when the shared .build is busy or broken).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
swift=${SWIFT:-swift}
# As `make install` builds: the Swift runtime linked in (see RELEASE_FLAGS in the Makefile).
flags=(-c release --static-swift-stdlib)
if [[ -n ${SCRATCH:-} ]]; then flags+=(--scratch-path "$SCRATCH"); fi
command -v redis-server >/dev/null || { echo "run-daemon.sh: redis-server not found; run: make deps" >&2; exit 1; }
# With --mobiusd PATH among the extra options the benchmark measures that binary (it overrides the default below),
# so the current daemon is not built: an older build can be measured while the sources do not compile.
own_daemon=1
for option in "$@"; do if [[ $option == --mobiusd ]]; then own_daemon=0; fi; done
if ((own_daemon)); then "$swift" build "${flags[@]}" --product mobiusd; fi
"$swift" build "${flags[@]}" --product mobiusd-bench
bin=$("$swift" build "${flags[@]}" --show-bin-path)
echo "machine: $(nproc) cores; uptime: $(uptime)"
"$bin/mobiusd-bench" --mobiusd "$bin/mobiusd" --runs "$runs" "$@"
echo "uptime after: $(uptime)"
