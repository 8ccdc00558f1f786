#!/usr/bin/env bash
# Why ThreadSanitizer builds replace Mutex (make sanitize runs this first): a correct two-thread counter under
# Synchronization's Mutex must draw a TSan race report (TSan cannot see the futex under it), and the same counter
# under SanitizerLocks' PthreadMutex must draw none. Exit status 1 when either is not so.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
SWIFTC=${SWIFTC:-swiftc}
scratch=$(mktemp -d /tmp/mobiusd-tsan-locks.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

# run NAME FLAGS...: builds the counter with TSan and FLAGS, runs it, leaves its output in $scratch/NAME.out.
run() {
    local name=$1
    shift
    "$SWIFTC" -parse-as-library -sanitize=thread -g "$@" -o "$scratch/$name" "$root/Tests/sanitize/TwoThreadCounter.swift"
    # exitcode=0: the report, not TSan's exit status 66, is what is checked.
    TSAN_OPTIONS="exitcode=0 log_path=stderr" "$scratch/$name" >"$scratch/$name.out" 2>&1
}

run mutex
run pthread -DPTHREAD_LOCK "$root/Sources/SanitizerLocks/PthreadMutex.swift"
status=0
if grep -q "200000" "$scratch/mutex.out" && grep -q "WARNING: ThreadSanitizer" "$scratch/mutex.out"; then
    echo "tsan-locks: Mutex: 200000, and TSan reports a race that cannot happen (it cannot see the lock)"
else
    echo "tsan-locks: Mutex: expected the total 200000 and a TSan race report; got:" >&2
    cat "$scratch/mutex.out" >&2
    status=1
fi
if [ "$(cat "$scratch/pthread.out")" = 200000 ]; then
    echo "tsan-locks: PthreadMutex: 200000, and no report"
else
    echo "tsan-locks: PthreadMutex: expected only the total 200000; got:" >&2
    cat "$scratch/pthread.out" >&2
    status=1
fi
exit $status
