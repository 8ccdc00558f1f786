#!/usr/bin/env bash
# Runs the test suite under each sanitizer named, in turn; make sanitize runs `address thread` (docs/reliability.md,
# "Sanitizers"), make test `--quick address thread`.
#
#   Tests/sanitize/run.sh [--quick] address|thread...
#
# address: AddressSanitizer with LeakSanitizer (the --sanitize=address build; ASan checks for leaks at every exit),
# thread: ThreadSanitizer (--sanitize=thread, with the TSan trait, so that Mutex is a lock TSan sees). Each sanitizer
# builds into a scratch path of its own (.build/asan, .build/tsan), so the normal build is left as it is. Runtime
# exclusivity checks stay on (a debug build's default).
#
# In full: `swift test` with everything built under the sanitizer (the integration tests start the sanitized
# mobiusd, mobiusctl, plugins and fixtures), then the README tour of Tests/newuser/run.sh with the sanitized
# binaries. --quick (what make test runs): only mobiusd is built under the sanitizer, and the normal build's test
# bundle runs QUICK_SUITES against it.
#
# Every sanitized process writes its reports to .build/sanitizer-reports/TOOL.PROGRAM.PID, whatever environment it was
# started with (Sources/SanitizerReports). The run fails when a test fails or when any report was written; each
# report is printed; the next sanitizer runs either way. Prints the time of each step. SWIFT and BUILD_FLAGS as make
# passes them.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
SWIFT=${SWIFT:-swift}
read -r -a build_flags <<<"${BUILD_FLAGS:-}"
# Suites of the normal test bundle that --quick runs against the sanitized daemon: a pipelined flood through the
# parse thread, durable passes through the journal thread and the kernel's background sync, `log` readers, plugins
# and their restarts, SIGHUP reloads on the reload thread.
QUICK_SUITES=${QUICK_SUITES:-'DaemonBatchTests|JournalLogTests|PluginEffectTests|PluginReloadTests'}

quick=0
if [ "${1:-}" = --quick ]; then
    quick=1
    shift
fi
[ $# -gt 0 ] || {
    echo "usage: Tests/sanitize/run.sh [--quick] address|thread..." >&2
    exit 2
}
reports=.build/sanitizer-reports
mkdir -p "$reports"

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }

# run SANITIZER: one sanitizer's run; status 1 when a test failed or a report was written.
run() {
    local sanitizer=$1 tool trait status=0 start bin summary found report
    case $sanitizer in
        address) tool=asan trait=ASan ;;
        thread) tool=tsan trait=TSan ;;
        *)
            echo "sanitize: no sanitizer \"$sanitizer\" (address or thread)" >&2
            return 2
            ;;
    esac
    local flags=(--sanitize="$sanitizer" --traits "$trait" --scratch-path ".build/$tool" "${build_flags[@]}")
    local log=$reports/$sanitizer-test.log
    rm -f "$reports/$tool".*

    # (set -e does not reach into a function called with ||: each failure returns here.)
    start=$(now)
    if [ "$quick" = 1 ]; then
        "$SWIFT" build "${build_flags[@]}" --build-tests || return 1
        "$SWIFT" build "${flags[@]}" --product mobiusd || return 1
    else
        "$SWIFT" build "${flags[@]}" --build-tests || return 1
    fi
    bin=$("$SWIFT" build "${flags[@]}" --show-bin-path) || return 1
    echo "sanitize: $sanitizer: built in $(elapsed "$start") s"

    start=$(now)
    if [ "$quick" = 1 ]; then
        # The normal test bundle against the sanitized binaries, told which sanitizer they have (MobiusTestSupport's
        # Sanitizer: its waits are longer, RSS bounds are not checked).
        MOBIUSD_TEST_BINARY=$bin/mobiusd MOBIUSD_TEST_SANITIZER=$sanitizer \
            "$SWIFT" test "${build_flags[@]}" --skip-build --filter "$QUICK_SUITES" >"$log" 2>&1 || status=1
    else
        "$SWIFT" test "${flags[@]}" --skip-build >"$log" 2>&1 || status=1
    fi
    summary=$(grep -E '^. Test run with [0-9]+ tests' "$log" | tail -n 1 || true)
    echo "sanitize: $sanitizer: swift test in $(elapsed "$start") s: ${summary:-no summary (see $log)}"
    if [ "$status" != 0 ]; then
        grep -E '^. (Test|Suite) .* (failed|recorded an issue)' "$log" | head -n 40 || true
        echo "sanitize: $sanitizer: swift test failed; its whole output: $log" >&2
    fi

    if [ "$quick" = 0 ]; then
        start=$(now)
        if SWIFT=$SWIFT BUILD_FLAGS="${flags[*]}" NEWUSER_TOUR_ONLY=1 Tests/newuser/run.sh; then
            echo "sanitize: $sanitizer: the newuser README tour in $(elapsed "$start") s"
        else
            status=1
        fi
    fi

    # A process that wrote an error or a warning; LeakSanitizer also writes a file that only counts the
    # suppressions it applied.
    found=$(grep -lE '(ERROR|WARNING): ' "$reports/$tool".* 2>/dev/null | sort || true)
    local suppressed
    suppressed=$(cat "$reports/$tool".* 2>/dev/null | awk '
        /^Suppressions used:/ { counting = 1; next }
        counting && $1 ~ /^[0-9]+$/ { uses[$3] += $1 }
        /^-+$/ { counting = 0 }
        END { for (name in uses) printf " %s (%d)", name, uses[name] }')
    [ -z "$suppressed" ] || echo "sanitize: $sanitizer: suppressions applied:$suppressed"
    if [ -n "$found" ]; then
        # Each report's first error line and summary, then the first report whole.
        for report in $found; do
            local first
            first=$(grep -m 1 -E '(ERROR|WARNING): ' "$report" | sed 's/^==[^=]*==[0-9]*==//')
            echo "sanitize: $sanitizer: $report: $first" >&2
            grep -m 1 '^SUMMARY:' "$report" | sed 's/^/    /' >&2 || true
        done
        echo "sanitize: $sanitizer: the first report:" >&2
        head -n 80 "$(head -n 1 <<<"$found")" >&2
        echo "sanitize: $sanitizer: $(wc -l <<<"$found") process(es) wrote reports" >&2
        status=1
    else
        echo "sanitize: $sanitizer: no reports"
    fi
    return $status
}

status=0
for sanitizer in "$@"; do run "$sanitizer" || status=1; done
exit $status
