#!/bin/bash
# The units under a real systemd as PID 1. `systemctl reload mobiusd@counter` waits for the daemon's outcome, exits
# 0 for a valid changed config (which takes effect) and fails for a refused one (which changes nothing), with the
# reason in `systemctl status`; then sandbox-checks.sh shows that the sandbox lets plugins and D-Bus work and the
# access lists see clients' own uids, and that the documented drop-in for plugin accounts works. systemd runs in a
# container (systemd-nspawn -b) whose root is an overlay of this machine's own root, in a mount namespace of its own
# (unshare -m) with /run on a tmpfs: the binaries, units and configs go into the overlay's upper layer in a scratch
# directory, so the host's /dev, /etc, /run and the checkout stay as they were. Needs root. Exits 0 with
# "skipped: REASON" when systemd-nspawn cannot run here at all, else non-zero on any failed check.
# `make test-systemd` runs it; docs/systemd.md, "Testing under a real systemd".
#   BIN=DIR     where mobiusd and mobiusctl are (default: `swift build --show-bin-path`)
#   KEEP=1      keep the scratch directory (the container's console log) after the run
set -u
cd "$(dirname "$0")/../.."

skip() {
    echo "skipped: $*"
    exit 0
}
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# How long the container may take to boot.
BOOT_SECONDS=30

if [ "${1:-}" != --inner ]; then
    [ "$(id -u)" = 0 ] || skip "needs root (systemd-nspawn, overlay and namespace mounts)"
    command -v systemd-nspawn >/dev/null || skip "systemd-nspawn is missing (Debian package systemd-container)"
    for tool in unshare nsenter; do command -v $tool >/dev/null || skip "$tool is missing (util-linux)"; done
    [ -x /lib/systemd/systemd ] || skip "/lib/systemd/systemd is missing: no systemd to boot"
    grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || skip "the kernel has no overlayfs"
    unshare -m --propagation private true 2>/dev/null || skip "cannot make a mount namespace (unshare -m)"

    if [ -z "${BIN:-}" ]; then
        BIN=$(swift build --show-bin-path) || fail "swift build --show-bin-path failed: set BIN=DIR"
    fi
    for tool in mobiusd mobiusctl; do
        [ -x "$BIN/$tool" ] || fail "$BIN/$tool is missing: run swift build first (or set BIN=DIR)"
    done
    scratch=$(mktemp -d /tmp/mobiusd-systemd.XXXXXX)

    # systemd-nspawn --keep-unit makes its payload and supervisor cgroups below the cgroup it runs in: run it in
    # one of our own, so that nothing is left below the machine's and two runs do not share one.
    cgroups=()
    cgroup_dirs() {
        local line hierarchy path
        while IFS= read -r line; do
            hierarchy=${line#*:}
            path=${hierarchy#*:}
            hierarchy=${hierarchy%%:*}
            case $hierarchy in
            "") for mount in /sys/fs/cgroup/unified /sys/fs/cgroup; do
                [ -e "$mount/cgroup.controllers" ] && { echo "$mount${path%/}"; break; }
            done ;;
            name=systemd) [ -d /sys/fs/cgroup/systemd ] && echo "/sys/fs/cgroup/systemd${path%/}" ;;
            esac
        done </proc/self/cgroup
    }
    for parent in $(cgroup_dirs); do
        own="$parent/$(basename "$scratch")"
        mkdir "$own" 2>/dev/null || continue
        if echo $$ >"$own/cgroup.procs"; then cgroups+=("$parent"); else rmdir "$own"; fi
    done

    cleanup() {
        for parent in "${cgroups[@]}"; do
            echo $$ >"$parent/cgroup.procs"
            find "$parent/$(basename "$scratch")" -depth -type d -exec rmdir {} + 2>/dev/null
        done
        if [ "${KEEP:-}" = 1 ]; then echo "kept: $scratch"; else rm -rf "$scratch"; fi
    }
    trap cleanup EXIT

    unshare -m --propagation private "$0" --inner "$scratch" "$BIN"
    exit
fi

# In the private mount namespace from here on.
scratch=$2
BIN=$3
root="$scratch/root"
nspawn_pid=""
init_pid=""

# Runs a command in the container: its mount, UTS, IPC, network and PID namespaces, a clean environment. Killed
# after 30 s: a container shutting down (Ctrl-C halts it) stops every process in it, and would stop this one.
in_container() {
    timeout -k 5 30 nsenter -t "$init_pid" -m -u -i -n -p -- \
        env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin "$@"
}

teardown() {
    if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
        [ -n "$init_pid" ] && in_container systemctl --no-block poweroff >/dev/null 2>&1
        for _ in $(seq 1 100); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.1; done
        # Still there: a SIGTERM asks nspawn to halt the container, a second one ends it at once.
        kill -TERM "$nspawn_pid" 2>/dev/null; sleep 1; kill -TERM "$nspawn_pid" 2>/dev/null
        for _ in $(seq 1 50); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$nspawn_pid" 2>/dev/null
        wait "$nspawn_pid" 2>/dev/null
    fi
    umount -R "$root" 2>/dev/null || umount -l "$root" 2>/dev/null
    umount "$scratch/layers" 2>/dev/null
    umount /run 2>/dev/null
}
trap teardown EXIT
trap 'fail "interrupted"' INT TERM

# nspawn keeps its own state in /run/systemd/nspawn: a tmpfs here keeps it off the host's /run.
mount -t tmpfs -o mode=0755 tmpfs /run || fail "cannot mount a tmpfs on /run in the private namespace"
# The upper layer on a tmpfs: what the container writes stays in memory and is gone with the unmount.
mkdir -p "$scratch/layers" "$root"
mount -t tmpfs tmpfs "$scratch/layers" || fail "cannot mount the tmpfs for the overlay's upper layer"
mkdir -p "$scratch/layers/upper" "$scratch/layers/work"
mount -t overlay overlay -o "lowerdir=/,upperdir=$scratch/layers/upper,workdir=$scratch/layers/work" "$root" ||
    fail "cannot mount the overlay of / on $root"

# What the container gets beyond the machine's own root: the binaries, the instance units, the app's config, and a
# machine id of its own.
mkdir -p "$root/usr/local/bin"
install -m 0755 "$BIN/mobiusd" "$BIN/mobiusctl" "$root/usr/local/bin/" || fail "cannot install the binaries"
mkdir -p "$root/etc/systemd/system" "$root/etc/mobiusd"
install -m 0644 systemd/mobiusd@.service systemd/mobiusd@.socket "$root/etc/systemd/system/" ||
    fail "cannot install the units"
# The units' system user, as `make install` creates it: its sysusers.d file here, systemd-sysusers once booted.
install -D -m 0644 systemd/sysusers.d/mobiusd.conf "$root/usr/local/lib/sysusers.d/mobiusd.conf" ||
    fail "cannot install the sysusers.d file"
rm -f "$root/etc/machine-id"
printf '%s\n' "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" >"$root/etc/machine-id"
config="$root/etc/mobiusd/counter.json"
write_config() {
    cat >"$config.new" && mv "$config.new" "$config"
}
write_config <<'EOF'
{
  "app": "counter",
  "model": 0,
  "update": { "builtin": "counter" },
  "access": { "read": ["*"], "write": ["root"] }
}
EOF

# Milliseconds since $1, a `date +%s%N`.
elapsed_ms() {
    echo $((($(date +%s%N) - $1) / 1000000))
}

echo "booting systemd in $root"
started=$(date +%s%N)
systemd-nspawn -b -D "$root" --register=no --keep-unit --private-network --console=pipe \
    </dev/null >"$scratch/console.log" 2>&1 &
nspawn_pid=$!

# The container's PID 1 is nspawn's child running systemd; up once `is-system-running` says so.
state=""
for _ in $(seq 1 $((BOOT_SECONDS * 10))); do
    kill -0 "$nspawn_pid" 2>/dev/null || { tail -20 "$scratch/console.log" >&2; fail "systemd-nspawn exited"; }
    if [ -z "$init_pid" ]; then
        for child in $(ps -o pid= --ppid "$nspawn_pid"); do
            [ "$(cat /proc/$child/comm 2>/dev/null)" = systemd ] && init_pid=$child
        done
    fi
    if [ -n "$init_pid" ]; then
        state=$(in_container systemctl is-system-running 2>/dev/null)
        case $state in running | degraded) break ;; esac
    fi
    sleep 0.1
done
case $state in
running | degraded) echo "ok: systemd is up ($state) after $(elapsed_ms "$started") ms" ;;
*) tail -20 "$scratch/console.log" >&2; fail "the container's systemd is not up after $BOOT_SECONDS s (state: ${state:-none})" ;;
esac

failures=0
check() {
    local what=$1
    shift
    if "$@"; then echo "ok: $what"; else echo "FAIL: $what" >&2; failures=$((failures + 1)); fi
}
# Runs a command in the container and keeps its output and exit status in $out and $rc.
run() {
    out=$(in_container "$@" 2>&1)
    rc=$?
}

run systemd-sysusers
check "systemd-sysusers creates the units' user mobiusd ($out)" in_container getent passwd mobiusd
check "systemd-sysusers creates the group mobiusd-send that the bus policy lets call Send" in_container getent group mobiusd-send
run systemctl start mobiusd@counter.socket mobiusd@counter.service
check "mobiusd@counter starts (systemctl start: $out)" [ $rc = 0 ]
run mobiusctl --human --socket /run/mobiusd/counter.sock send '{"type":"increment"}'
check "an event is accepted before any reload (mobiusctl send: $out)" [ $rc = 0 ]

# A line longer than maxLineBytes closes the connection with LineTooLong: how the test sees which limit is live.
long_event=$(printf '{"type":"increment","pad":"%05000d"}' 0)
line_too_long() {
    in_container socat -t 1 - UNIX-CONNECT:/run/mobiusd/counter.sock <<<"$long_event" 2>&1 | grep -q LineTooLong
}
check "a 5 kB line is taken under the default 1 MiB limit (it is event 2)" eval '! line_too_long'

# (a) A valid changed config: systemctl reload succeeds once it is applied, and the new limit is live.
write_config <<'EOF'
{
  "app": "counter",
  "model": 0,
  "update": { "builtin": "counter" },
  "socket": { "maxLineBytes": 4096 },
  "access": { "read": ["*"], "write": ["root"] }
}
EOF
reload_started=$(date +%s%N)
run systemctl reload mobiusd@counter.service
check "systemctl reload of a valid config exits 0 (rc $rc: $out)" [ $rc = 0 ]
echo "   systemctl reload took $(elapsed_ms "$reload_started") ms"
check "the 4096-byte limit is applied when systemctl reload returns" line_too_long
run journalctl -u mobiusd@counter.service --no-pager -o cat
check "the journal shows the reload" grep -q 'reloaded: access lists and socket limits applied' <<<"$out"

# (b) A refused config: systemctl reload fails, the status says why, the old config keeps running.
write_config <<'EOF'
{
  "app": "counter",
  "model": 0,
  "update": { "builtin": "counter" },
  "socket": { "maxLineBytes": 1048576, "mode": 7 },
  "access": { "read": ["*"], "write": ["root"] }
}
EOF
run systemctl reload mobiusd@counter.service
check "systemctl reload of a refused config exits non-zero (rc $rc: $out)" [ $rc != 0 ]
run systemctl status --no-pager --lines=0 mobiusd@counter.service
status_line=$(grep -m1 'Status:' <<<"$out")
check "systemctl status shows the refusal ($status_line)" grep -q 'reload refused.*socket.mode' <<<"$status_line"
run journalctl -u mobiusd@counter.service --no-pager -o cat
check "the journal names the refused key" grep -q 'reload refused, the running configuration is kept: .*socket.mode' \
    <<<"$out"
run systemctl is-active mobiusd@counter.service
check "the daemon still runs ($out)" [ "$out" = active ]
check "the 4096-byte limit of the last good config is still live" line_too_long
run mobiusctl --human --socket /run/mobiusd/counter.sock send '{"type":"increment"}'
check "the daemon still takes events (mobiusctl send: $out)" grep -q 'seq 3' <<<"$out"

# (c) and (d): plugins, D-Bus and access under the sandbox, and the drop-in for plugin accounts.
. Tests/systemd/sandbox-checks.sh

if [ $failures != 0 ]; then
    echo "--- journal of the mobiusd units" >&2
    in_container journalctl -u 'mobiusd@*' --no-pager >&2
    fail "$failures check(s) failed"
fi
echo "ok: all checks passed"
