#!/usr/bin/env bash
# A new user's first hour, scripted (issue 11 item 8); `make test` runs it after the Swift tests.
#
# 1. The README tour: the built mobiusd with no arguments (what `make run` runs), events with socat, mobiusctl
#    watch/send/status/monitor/log as the README shows them, a stop and a restart that resumes the model.
# 2. The app of docs/apps.md: every code block marked `<!-- file: PATH -->` is written out (PATH relative to a
#    scratch work directory; absolute paths land under its root/), this checkout is linked in as `mobiusd` (the
#    path dependency's identity is its directory name), then `swift test` and `swift build` as the page says, run
#    the app, drive it with socat, restart it, `--check` the page's config, and `systemd-analyze verify` the page's
#    drop-in against systemd/mobiusd@.service.
#
# Everything happens in a scratch directory (removed at the end, kept on failure), with its own XDG_RUNTIME_DIR and
# XDG_STATE_HOME; the app is built in its own .build there, so this checkout's .build is only read. Prints the wall
# time of each part. Usage: Tests/newuser/run.sh (SWIFT=swift and BUILD_FLAGS= by default; make test passes its own;
# NEWUSER_TOUR_ONLY=1 runs part 1 alone, as make sanitize does with the sanitized binaries).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
SWIFT=${SWIFT:-swift}
scratch=$(mktemp -d /tmp/mobiusd-newuser.XXXXXX)
pids=()
ok=0

cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [ "$ok" = 1 ]; then rm -rf "$scratch"; else echo "newuser: FAILED; scratch directory kept: $scratch" >&2; fi
}
trap cleanup EXIT

fail() {
    echo "newuser: FAIL: $*" >&2
    exit 1
}

# expect WHAT ACTUAL EXPECTED: exact text.
expect() {
    [ "$2" = "$3" ] || fail "$1"$'\n'"  expected: $3"$'\n'"  got:      $2"
}

# expect_like WHAT ACTUAL PATTERN: a shell pattern.
expect_like() {
    # shellcheck disable=SC2053
    [[ $2 == $3 ]] || fail "$1"$'\n'"  expected like: $3"$'\n'"  got:           $2"
}

# send SOCKET LINE...: the lines to the socket with socat, as the docs do; prints the replies.
send() {
    local socket=$1
    shift
    printf '%s\n' "$@" | timeout 10 socat - "UNIX-CONNECT:$socket"
}

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# spawn FD NAME PROGRAM ARGS...: starts a program in the background with its stdout on descriptor FD (through a
# FIFO, so lines are read with a timeout as they come: a program that fails ends the script instead of hanging it)
# and its stderr in $scratch/NAME.log; sets spawned_pid.
spawn() {
    local fd=$1 name=$2
    shift 2
    mkfifo "$scratch/$name.out"
    "$@" >"$scratch/$name.out" 2>"$scratch/$name.log" &
    spawned_pid=$!
    pids+=("$spawned_pid")
    eval "exec $fd<\"\$scratch/\$name.out\""
}

# start NAME WHAT COMMAND...: spawn on fd 3 and read the first line of the banner into $banner (pid in
# $spawned_pid); WHAT names the program in the failure message.
start() {
    local name=$1 what=$2
    shift 2
    spawn 3 "$name" "$@"
    read -r -t 30 -u 3 banner || fail "$what printed no banner: $(cat "$scratch/$name.log")"
}

# stop SIGNAL PID WHAT: sends the signal, then the program's exit status must be 0.
stop() {
    kill "-$1" "$2"
    local status=0
    wait "$2" || status=$?
    local kept=() pid
    for pid in "${pids[@]}"; do [ "$pid" = "$2" ] || kept+=("$pid"); done
    pids=("${kept[@]}")
    expect "$3: exit status after SIG$1" "$status" 0
}

total_start=$(now)
unset MOBIUSD_SOCKET
export XDG_RUNTIME_DIR=$scratch/run XDG_STATE_HOME=$scratch/state
mkdir -m 0700 "$XDG_RUNTIME_DIR"

# ---------------------------------------------------------------------------------------------------------------
# 1. The README tour.
tour_start=$(now)
# BUILD_FLAGS as make passes them (the same flags as make build, or every module would be compiled again).
# shellcheck disable=SC2086
(cd "$root" && "$SWIFT" build ${BUILD_FLAGS:-} --product mobiusd >/dev/null &&
    "$SWIFT" build ${BUILD_FLAGS:-} --product mobiusctl >/dev/null)
# shellcheck disable=SC2086
bin=$(cd "$root" && "$SWIFT" build ${BUILD_FLAGS:-} --show-bin-path)
export PATH="$bin:$PATH"

S=$XDG_RUNTIME_DIR/mobiusd/counter.sock
start counter mobiusd "$bin/mobiusd"
counter_pid=$spawned_pid
expect_like "banner" "$banner" "*: app \"counter\" listening on $S"
read -r -t 5 -u 3 paste || fail "no socat line in the banner"
expect_like "banner's socat line" "$paste" "*echo '{\"type\":\"increment\"}' | socat - UNIX-CONNECT:$S"

expect "README: increment" "$(send "$S" '{"type":"increment"}')" '{"ok":true,"seq":1}'
expect "README: increment, model" "$(send "$S" '{"type":"increment"}' model)" \
    $'{"ok":true,"seq":2}\n{"ok":true,"seq":2,"model":2}'
expect_like "README: jump" "$(send "$S" '{"type":"jump"}')" '{"ok":false,"error":{"code":"InvalidEvent",*},"line":1}'

# mobiusctl watch (its stdout is a pipe here, so it prints the daemon's JSON lines).
spawn 4 watch mobiusctl watch
watch_pid=$spawned_pid
read -r -t 10 -u 4 line || fail "mobiusctl watch printed nothing"
expect_like "README: watch's first line" "$line" '{"ok":true,"seq":2,*"model":2}'
expect "README: mobiusctl send" "$(timeout 10 mobiusctl send '{"type":"decrement"}')" '{"ok":true,"seq":3}'
read -r -t 10 -u 4 line || fail "mobiusctl watch printed no change"
expect "README: watch sees the decrement" "$line" '{"seq":3,"model":1}'
stop INT "$watch_pid" "mobiusctl watch"
exec 4<&-

expect_like "README: mobiusctl status" "$(timeout 10 mobiusctl status)" '{"ok":true,"app":"counter","seq":3,*'

spawn 4 monitor mobiusctl monitor
monitor_pid=$spawned_pid
read -r -t 10 -u 4 line || fail "mobiusctl monitor printed nothing"
expect "README: monitor's reply" "$line" '{"ok":true,"seq":3}'
timeout 10 mobiusctl send '{"type":"increment"}' >/dev/null
read -r -t 10 -u 4 line || fail "mobiusctl monitor printed no trace"
expect "README: monitor's event trace" "$line" '{"trace":"event","seq":4,"event":{"type":"increment"}}'
read -r -t 10 -u 4 line || fail "mobiusctl monitor printed no model trace"
expect "README: monitor's model trace" "$line" '{"trace":"model","seq":4,"model":2}'
stop INT "$monitor_pid" "mobiusctl monitor"
exec 4<&-

log=$(timeout 10 mobiusctl log --since 0)
expect "README: mobiusctl log --since 0 ends at seq 4" "$(tail -n 1 <<<"$log")" '{"end":true,"seq":4}'
expect "README: mobiusctl log --since 0 has the 4 applied events" "$(grep -c '"event":' <<<"$log")" 4

stop TERM "$counter_pid" mobiusd
exec 3<&-
[ ! -e "$S" ] || fail "the socket is still there after SIGTERM"

# A restart resumes the model and the seq from ~/.local/state (here XDG_STATE_HOME).
start counter-restart "mobiusd (restarted)" "$bin/mobiusd"
counter_pid=$spawned_pid
expect "README: the restart resumes" "$(send "$S" model)" '{"ok":true,"seq":4,"model":2}'
stop TERM "$counter_pid" mobiusd
exec 3<&-
tour_time=$(elapsed "$tour_start")
echo "newuser: README tour passed in ${tour_time} s"
if [ "${NEWUSER_TOUR_ONLY:-0}" = 1 ]; then
    ok=1
    exit 0
fi

# ---------------------------------------------------------------------------------------------------------------
# 2. The app of docs/apps.md, from its code blocks.
work=$scratch/work
mkdir -p "$work"
ln -s "$root" "$work/mobiusd"
files=()
target=""
fenced=0
while IFS= read -r line; do
    if [ -n "$target" ]; then
        if [[ $line == '```'* ]]; then
            if [ "$fenced" = 1 ]; then target="" fenced=0; else fenced=1; fi
        elif [ "$fenced" = 1 ]; then
            printf '%s\n' "$line" >>"$target"
        else
            fail "docs/apps.md: the line after <!-- file: … --> must open a code block, not: $line"
        fi
        continue
    fi
    if [[ $line =~ ^'<!-- file: '(.+)' -->'$ ]]; then
        name=${BASH_REMATCH[1]}
        case $name in /*) target=$work/root$name ;; *) target=$work/$name ;; esac
        [ ! -e "$target" ] || fail "docs/apps.md names $name twice"
        mkdir -p "$(dirname "$target")"
        : >"$target"
        files+=("$name")
    fi
done <"$root/docs/apps.md"
[ -z "$target" ] || fail "docs/apps.md: the block for $name is not closed"
for needed in thermostat/Package.swift thermostat/Sources/thermostat/main.swift \
    /etc/systemd/system/mobiusd@thermostat.service.d/app.conf /etc/mobiusd/thermostat.json; do
    [[ " ${files[*]} " == *" $needed "* ]] || fail "docs/apps.md has no block marked <!-- file: $needed -->"
done
echo "newuser: docs/apps.md gives ${#files[@]} files: ${files[*]}"

app=$work/thermostat
# SwiftPM keeps lock files named after the build directory in TMPDIR: in the scratch directory, they go with it.
mkdir "$scratch/tmp"
build_start=$(now)
(cd "$app" && TMPDIR=$scratch/tmp "$SWIFT" test >"$scratch/app-test.log" 2>&1) || fail "swift test of the app: $(tail -n 40 "$scratch/app-test.log")"
test_time=$(elapsed "$build_start")
grep -q 'Test run with 3 tests .* passed' "$scratch/app-test.log" ||
    fail "the app's 3 tests did not all run and pass: $(tail -n 20 "$scratch/app-test.log")"
warnings=$(grep -c 'warning:' "$scratch/app-test.log" || true)
[ "$warnings" = 0 ] || fail "building the app gave $warnings warnings: $(grep 'warning:' "$scratch/app-test.log" | sort -u)"
(cd "$app" && TMPDIR=$scratch/tmp "$SWIFT" build >"$scratch/app-build.log" 2>&1) || fail "swift build of the app: $(cat "$scratch/app-build.log")"
echo "newuser: docs/apps.md app: swift test (building mobiusd's libraries from scratch) ${test_time} s, no warnings"

T=$XDG_RUNTIME_DIR/mobiusd/thermostat.sock
start thermostat "the app" "$app/.build/debug/thermostat"
app_pid=$spawned_pid
expect_like "the app's banner" "$banner" "thermostat 1.0.0 (mobiusd kit *): app \"thermostat\" listening on $T"
read -r -t 5 -u 3 paste || fail "no socat line in the app's banner"
expect_like "the app's socat line" "$paste" "*echo '{\"type\":\"reading\",\"celsius\":18.5}' | socat - UNIX-CONNECT:$T"
expect "apps.md: a reading" "$(send "$T" '{"type":"reading","celsius":18.5}')" '{"ok":true,"seq":1}'
expect "apps.md: the model" "$(send "$T" model)" \
    '{"ok":true,"seq":1,"model":{"target":20,"celsius":18.5,"heating":true}}'
expect "apps.md: a wrong shape" "$(send "$T" '{"type":"setTarget","celsius":"warm"}')" \
    '{"ok":false,"error":{"code":"InvalidEvent","message":"the app rejected the event: setTarget.celsius: expected a number, found a string"},"line":1}'
stop TERM "$app_pid" thermostat
exec 3<&-
grep -q 'heating on' "$scratch/thermostat.log" || fail "the app's effect handler logged no \"heating on\""

start thermostat-restart "the app (restarted)" "$app/.build/debug/thermostat"
app_pid=$spawned_pid
expect "apps.md: the restart resumes" "$(send "$T" model)" \
    '{"ok":true,"seq":1,"model":{"target":20,"celsius":18.5,"heating":true}}'
expect "apps.md: setTarget" "$(send "$T" '{"type":"setTarget","celsius":17}')" '{"ok":true,"seq":2}'
expect "apps.md: the heating follows" "$(send "$T" 'model {"path":"/heating"}')" '{"ok":true,"seq":2,"model":false}'
stop TERM "$app_pid" thermostat
exec 3<&-

version=$("$app/.build/debug/thermostat" --version) || fail "thermostat --version failed"
expect_like "apps.md: --version" "$version" 'thermostat 1.0.0 (mobiusd kit *)'
help=$("$app/.build/debug/thermostat" --help) || fail "thermostat --help failed"
expect_like "apps.md: --help" "$help" $'Usage: thermostat *Switches the heating on below the target temperature.*{"type":"reading","celsius":18.5}*'

config=$work/root/etc/mobiusd/thermostat.json
check=$("$app/.build/debug/thermostat" --check --config "$config" 2>&1) || fail "--check of the page's config: $check"
expect_like "apps.md: --check" "$check" 'thermostat: configuration OK (app "thermostat", *'

if command -v systemd-analyze >/dev/null; then
    units=$scratch/units
    mkdir -p "$units/mobiusd@thermostat.service.d"
    sed -e "s#/usr/local/bin/mobiusd#$bin/mobiusd#" -e "s#/usr/local/bin/mobiusctl#$bin/mobiusctl#" \
        "$root/systemd/mobiusd@.service" >"$units/mobiusd@.service"
    cp "$root/systemd/mobiusd@.socket" "$units/"
    dropin=$work/root/etc/systemd/system/mobiusd@thermostat.service.d/app.conf
    grep -q '^ExecStart=/usr/local/bin/thermostat ' "$dropin" || fail "the drop-in does not start /usr/local/bin/thermostat"
    sed -e "s#/usr/local/bin/thermostat#$app/.build/debug/thermostat#" -e "s#/etc/mobiusd/thermostat.json#$config#" \
        "$dropin" >"$units/mobiusd@thermostat.service.d/app.conf"
    verify=$(cd "$units" && systemd-analyze verify --man=no mobiusd@thermostat.service mobiusd@thermostat.socket 2>&1) ||
        fail "systemd-analyze verify of the page's drop-in: $verify"
    expect "systemd-analyze verify says nothing" "$verify" ""
else
    echo "newuser: systemd-analyze missing (make deps installs the package systemd): drop-in not verified"
fi
ok=1
echo "newuser: passed; README tour ${tour_time} s, app build and tests ${test_time} s, total $(elapsed "$total_start") s"
