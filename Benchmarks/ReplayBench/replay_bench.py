#!/usr/bin/env python3
"""Records histories with the real daemon, then times `replay` over them (Benchmarks/run-replay.sh).

Usage: replay_bench.py BIN RUNS UPDATE_PY. Prints one row per scenario: the median events/s of RUNS runs (the whole
command: both sides' start, the replay, the shutdown) with the slowest and fastest run, and the median events per
CPU second of the command and the plugin processes it started (which a busy machine's wall clock hides).
"""
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time

BIN, RUNS, UPDATE_PY = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# No snapshot and no compaction while recording: every event stays in the journal.
STATE = {"fsync": "never", "snapshotEvents": 1_000_000_000, "snapshotBytes": 1 << 40}


def record(program, config, state, events, scratch):
    """Runs `program` with `config` on `state`, sends `events` pipelined (replies off), and stops it."""
    path = os.path.join(scratch, "record.json")
    with open(path, "w") as f:
        json.dump(config, f)
    sock = os.path.join(scratch, "record.sock")
    daemon = subprocess.Popen([program, "--config", path, "--state-dir", state, "--socket", sock],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(500):
        if os.path.exists(sock):
            break
        time.sleep(0.02)
    client = socket.socket(socket.AF_UNIX)
    client.connect(sock)
    payload = ("reply off\n" + "".join(e + "\n" for e in events) + "ping\n").encode()
    client.sendall(payload)
    reply = b""
    while b'"ok":true' not in reply:
        reply += client.recv(65536)
    client.close()
    daemon.terminate()
    daemon.wait()


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def replay(program, arguments):
    """Wall seconds and CPU seconds of one run (the plugins, children of the command, are counted in its usage)."""
    cpu = cpu_seconds()
    started = time.monotonic()
    run = subprocess.run([program, "replay"] + arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed = time.monotonic() - started
    if run.returncode != 0:
        sys.exit("replay failed (%d): %s%s" % (run.returncode, run.stdout, run.stderr))
    return elapsed, cpu_seconds() - cpu


def scenario(name, count, program, arguments):
    runs = [replay(program, arguments) for _ in range(RUNS)]
    rates = sorted(count / wall for wall, _ in runs)
    per_cpu = statistics.median(count / cpu for _, cpu in runs)
    print("%-48s %8d events  %9.0f events/s median (%.0f-%.0f)  %9.0f events/CPU s" % (
        name, count, statistics.median(rates), rates[0], rates[-1], per_cpu), flush=True)


with tempfile.TemporaryDirectory(prefix="replay-bench") as scratch:
    counter = {"app": "counter", "update": {"builtin": "counter"}, "state": STATE}
    counter_state = os.path.join(scratch, "counter")
    count = 1_000_000
    record(os.path.join(BIN, "mobiusd"), counter, counter_state, ['{"type":"increment"}'] * count, scratch)
    counter_config = os.path.join(scratch, "counter.json")
    with open(counter_config, "w") as f:
        json.dump(counter, f)
    scenario("built-in counter, both sides", count, os.path.join(BIN, "mobiusd"),
             ["--state-dir", counter_state, "--current", counter_config, "--config", counter_config])

    door_state = os.path.join(scratch, "door-lock")
    cycle = ['{"type":"unlock","code":"0000"}', '{"type":"unlock","code":"1111"}', '{"type":"unlock","code":"1234"}',
             '{"type":"lock"}', '{"type":"unlock","code":"2222"}']
    count = 100_000
    record(os.path.join(BIN, "door-lock"), {"state": STATE}, door_state, cycle * (count // len(cycle)), scratch)
    plugin = {"app": "door-lock", "model": {"locked": True, "failedAttempts": 0}, "update": {"plugin": "door"},
              "plugins": {"door": {"exec": [UPDATE_PY]}}}
    plugin_config = os.path.join(scratch, "door-lock.json")
    with open(plugin_config, "w") as f:
        json.dump(plugin, f)
    scenario("update plugin (Python, updateBatch), both sides", count, os.path.join(BIN, "mobiusd"),
             ["--state-dir", door_state, "--current", plugin_config, "--config", plugin_config])
    scenario("typed Swift app against the update plugin", count, os.path.join(BIN, "door-lock"),
             ["--state-dir", door_state, "--current", plugin_config])
