#!/bin/sh
# Counts the instructions a release mobiusd spends on a fixed socket workload, under callgrind: one client sends
# N counter events one at a time (each waits for its ack), then N pipelined, then `ping`. Instruction counts do not
# move with the machine's load, so two builds can be compared on a busy machine where timed rows cannot.
#
#   Benchmarks/DaemonBench/callgrind.sh PATH/TO/mobiusd [N]     (default N: 20000)
#
# EVENT=LINE sends another event (EVENT='{"type":"decrement"}': the counter stays at 0 and every event dispatches
# an effect, which becomes a log line where no mobiusd-beep is installed); ONE_AT_A_TIME=1 leaves out the pipelined
# part, whose batching, and so its count, moves with the timing.
# Prints the total instruction count of the daemon's whole run; with CALLGRIND_OUT=FILE the profile is kept there
# for callgrind_annotate. Build with
# `swift build -c release --static-swift-stdlib --product mobiusd`.
set -eu
daemon=$1
count=${2:-20000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/client.py" <<'PY'
import socket, sys, time
path, n, event, pipelined = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode() + b"\n", sys.argv[4] == "yes"
for _ in range(600):
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(path); break
    except OSError:
        time.sleep(0.05)
f = s.makefile("rb")
for i in range(n):
    s.sendall(event); f.readline()
more = n if pipelined else 0
s.sendall(event * more + b'ping\n')
for i in range(more + 1):
    f.readline()
PY
out=${CALLGRIND_OUT:-$dir/out}
valgrind --tool=callgrind --callgrind-out-file="$out" "$daemon" --ephemeral --socket "$dir/s" \
    > "$dir/daemon.log" 2>&1 &
pid=$!
event='{"type":"increment"}'
[ -n "${EVENT:-}" ] && event=$EVENT
pipelined=yes
[ -n "${ONE_AT_A_TIME:-}" ] && pipelined=no
python3 "$dir/client.py" "$dir/s" "$count" "$event" "$pipelined"
kill -TERM "$pid"
wait "$pid" || true
grep '^summary:' "$out" | awk '{print $2}'
