#!/bin/bash
# Builds the libFuzzer targets (docs/reliability.md, "Fuzzing") and runs each for FUZZ_SECONDS, then prints a table
# of executions, coverage and findings per target. Exit status 1 when a target found a crash or a broken oracle.
#
#   Fuzz/run.sh [--smoke] [TARGET...]
#
# The build has its own scratch path (.build/fuzz), so it never recompiles the normal build. Each target starts from
# its seed corpus in Fuzz/Corpus/TARGET (only read) and, except with --smoke, from what earlier runs found, kept in
# .build/fuzz/corpus/TARGET, for FUZZ_SECONDS (default 60). --smoke (make test) runs the seeds and then fuzzes for
# FUZZ_SMOKE_SECONDS (default 3) into a corpus of its own that is thrown away, from the fixed FUZZ_SEED (default 1), so
# that a smoke which fails in CI fails the same way here; the long runs draw a new seed each time. Crashing inputs go
# to .build/fuzz/findings/TARGET-crash-…; run one again with `.build/fuzz/debug/mobiusd-fuzz TARGET FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=false
if [ "${1:-}" = --smoke ]; then
    smoke=true
    shift
fi
targets=("$@")
if [ ${#targets[@]} = 0 ]; then targets=(request json pointer config plugin dbus journal); fi
if $smoke; then seconds=${FUZZ_SMOKE_SECONDS:-3}; else seconds=${FUZZ_SECONDS:-60}; fi
SWIFT=${SWIFT:-swift}

MOBIUSD_FUZZ=1 $SWIFT build -c debug --scratch-path .build/fuzz --product mobiusd-fuzz \
    -Xswiftc -sanitize=fuzzer,address 2>&1 | grep -v "Cannot export local symbol" >&2
fuzzer=.build/fuzz/debug/mobiusd-fuzz

# Scratch files of the targets (the journal's state directories, the config file) go to a tmpfs when there is one:
# the journal target syncs every pass, which costs nothing there and milliseconds on a disk.
parent=/tmp
if [ -d /dev/shm ] && [ -w /dev/shm ]; then parent=/dev/shm; fi
scratch=$(mktemp -d "$parent/mobiusd-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p .build/fuzz/findings

failed=0
rows=()
for target in "${targets[@]}"; do
    if $smoke; then
        corpus="$scratch/corpus-$target"
    else
        corpus=.build/fuzz/corpus/$target
    fi
    mkdir -p "$corpus" "$scratch/tmp-$target"
    # No leak checks: Swift's runtime keeps caches LeakSanitizer takes for leaks, and its scans cost more than inputs.
    options=(-max_total_time="$seconds" -timeout=60 -detect_leaks=0 -print_final_stats=1
        -artifact_prefix=".build/fuzz/findings/$target-")
    if [ -f "Fuzz/Dictionaries/$target.dict" ]; then options+=(-dict="Fuzz/Dictionaries/$target.dict"); fi
    if $smoke; then options+=(-seed="${FUZZ_SEED:-1}"); fi
    log="$scratch/$target.log"
    echo "fuzz: $target for ${seconds}s" >&2
    # Swift's own crash backtracer would race libFuzzer's report of the same crash.
    status=0
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 TMPDIR="$scratch/tmp-$target" \
        "$fuzzer" "$target" "${options[@]}" "$corpus" "Fuzz/Corpus/$target" >"$log" 2>&1 || status=$?
    # The last figures libFuzzer printed (a crash ends the run before the final stats).
    last() { { grep -o "$1 [0-9]*" "$log" || true; } | tail -1 | cut -d' ' -f2; }
    runs=$(last 'stat::number_of_executed_units:')
    runs=${runs:-$( { grep -o '^#[0-9]*' "$log" || true; } | tail -1 | tr -d '#')}
    edges=$(last 'cov:')
    features=$(last 'ft:')
    units=$(last 'corp:')
    finding=none
    if [ "$status" != 0 ]; then
        failed=1
        finding=$( { grep -m1 -o 'Test unit written to [^ ]*' "$log" || true; } | sed 's/.*written to //')
        finding=${finding:-"exit status $status"}
        grep -E 'oracle failed|ERROR|SUMMARY|Fatal error' "$log" | head -5 >&2 || true
    fi
    rows+=("$(printf '%-8s %12s %8s %9s %7s  %s' "$target" "${runs:-?}" "${edges:-?}" "${features:-?}" "${units:-?}" "$finding")")
done

printf '%-8s %12s %8s %9s %7s  %s\n' target executions edges features corpus finding
printf '%s\n' "${rows[@]}"
exit $failed
