#!/usr/bin/env python3
"""Instructions the daemon spends per event on an update plugin's path, under callgrind.

    Benchmarks/PluginDaemonBench/callgrind.py BIN_DIR [--batched] [--python] [--events N1,N2]

Runs the `update plugin` workload of run.py twice, with N1 and N2 events (default 1,000 and 4,000 one at a time,
50,000 and 200,000 batched), the daemon (BIN_DIR/mobiusd) under callgrind and the plugin outside it, and prints the
instructions per event from the difference of the two runs, so start-up and shutdown drop out. Instruction counts do
not move with the machine's load, so two builds can be compared where the timed rows cannot
(Benchmarks/DaemonBench/README.md, "Instruction counts with a plugin"). With --keep DIR the two profiles stay there
for callgrind_annotate.

valgrind 3.19 (Debian 12) does not know pidfd_open, so a daemon under it cannot start a plugin. Measure builds in
which `mobiusd_pidfd_open` (Sources/CLinux/spawn_piped.h) falls back to an eventfd on ENOSYS, a change for the
measurement only: the plugin's exit then goes unseen, so the script dumps the profile with callgrind_control and
kills the daemon. Without it the script stops with the daemon's answer.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402


def instructions(bin_dir, count, batched, python, profile):
    """The daemon's whole instruction count for one run of `count` events."""
    with tempfile.TemporaryDirectory(prefix="mobiusd-callgrind") as scratch:
        wrapper = os.path.join(scratch, "mobiusd")
        with open(wrapper, "w") as f:
            f.write('#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=%s %s "$@"\n'
                    % (profile, os.path.join(bin_dir, "mobiusd")))
        os.chmod(wrapper, 0o755)
        plugin = ([os.path.join(HERE, "bench_plugin.py")] if python
                  else [os.path.join(bin_dir, "mobiusd-bench-plugin")])
        config = {"app": "bench", "model": 0, "update": {"plugin": "app"},
                  "plugins": {"app": {"exec": plugin, "maxBatch": 1024 if batched else 1, "env": run.SDK_PATH,
                                      "startTimeout": 60, "updateTimeout": 600}}}
        daemon = run.Daemon(wrapper, config)
        try:
            daemon.request('reply "off"')
            if batched:
                daemon.conn.sendall(b'{"type":"add"}\n' * count)
            else:
                # Pipelined in groups of 50: the update plugin still gets one event per request (maxBatch 1).
                for sent in range(0, count, 50):
                    daemon.conn.sendall(b'{"type":"add"}\n' * min(50, count - sent))
                    daemon.request("ping")
            reply = daemon.request("ping")
            if reply.get("seq") != count:
                raise SystemExit("callgrind.py: the daemon answered %s (a build without the pidfd fallback cannot "
                                 "start a plugin under valgrind: see this script's help)" % reply)
            subprocess.run(["callgrind_control", "-d", str(daemon.process.pid)], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        finally:
            daemon.process.kill()
            daemon.process.wait()
            daemon.conn.close()
            daemon.err.close()
            shutil.rmtree(daemon.dir, ignore_errors=True)
    dumped = profile + ".1"
    with open(dumped) as f:
        total = next(int(line.split()[1]) for line in f if line.startswith("summary:"))
    os.replace(dumped, profile)
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bin_dir")
    parser.add_argument("--batched", action="store_true", help="maxBatch 1024 instead of one event per request")
    parser.add_argument("--python", action="store_true", help="the Python SDK plugin instead of the Swift one")
    parser.add_argument("--events", help="the two run lengths, N1,N2")
    parser.add_argument("--keep", help="a directory for the two profiles")
    options = parser.parse_args()
    if options.events:
        short, long = (int(n) for n in options.events.split(","))
    else:
        short, long = (50_000, 200_000) if options.batched else (1_000, 4_000)
    keep = options.keep or tempfile.mkdtemp(prefix="mobiusd-callgrind-profiles")
    os.makedirs(keep, exist_ok=True)
    counts = [instructions(options.bin_dir, n, options.batched, options.python,
                           os.path.join(keep, "callgrind.%d.out" % n)) for n in (short, long)]
    if not options.keep:
        shutil.rmtree(keep)
    print("instructions: %d (%d events), %d (%d events); per event %.0f"
          % (counts[0], short, counts[1], long, (counts[1] - counts[0]) / (long - short)))


if __name__ == "__main__":
    main()
