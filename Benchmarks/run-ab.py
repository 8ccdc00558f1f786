#!/usr/bin/env python3
"""Alternating A/B of two builds over every `make bench` row.

    Benchmarks/run-ab.py A_BIN B_BIN [--runs 5] [--only library,json,daemon,systemd,dbus,plugin-daemon,plugin]

A_BIN and B_BIN are release bin directories (`swift build -c release --static-swift-stdlib --show-bin-path`) that hold
mobiusd, mobius-bench, mobius-json-bench, mobiusd-fixture-dbus-recorder, mobiusd-bench-relay, mobiusd-bench-plugin,
mobiusd-plugin-bench and mobiusd-fixture-plugin. The clients that only measure (mobiusd-bench, mobiusd-systemd-bench)
come from B_BIN for both sides, so both daemons face the same client. Each run measures both, A first in odd runs
and B first in even ones, so a change in the machine's load falls on both sides and neither side is always second
(an even --runs puts each first equally often); the table has the medians of each side and B/A. A row is a rate (higher is
better) or a cost (lower is better), as its unit says. The fsync hand-off harness measures no code of ours and is
left out.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(command, timeout=1800):
    """Runs `command`, returns its stdout; stderr passes through."""
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, text=True, timeout=timeout)
    if done.returncode != 0:
        raise SystemExit("run-ab: %s exited %d" % (" ".join(command), done.returncode))
    return done.stdout


def library(bin_dir):
    rows = {}
    for scenario in ("loop", "roundtrip", "roundtrip-mirror", "controller"):
        line = run([os.path.join(bin_dir, "mobius-bench"), scenario, "1000000"])
        rows["library %s (events/s)" % scenario] = float(re.search(r'"perSecond":([0-9.]+)', line).group(1))
    return rows


def json_bench(bin_dir):
    rows = {}
    for line in run([os.path.join(bin_dir, "mobius-json-bench"), "200000"]).splitlines():
        if line.startswith("bench "):
            fields = dict(part.split("=", 1) for part in line.split()[1:] if "=" in part)
            rows["json %s (ops/s)" % fields["name"]] = float(fields["ours"])
    return rows


def daemon(bin_dir, client_dir):
    rows = {}
    output = run([os.path.join(client_dir, "mobiusd-bench"), "--mobiusd", os.path.join(bin_dir, "mobiusd"), "--runs", "1"])
    for line in output.splitlines():
        if not line.startswith('{"bench":"mobiusd-daemon"'):
            continue
        item = json.loads(line)
        if "metric" not in item or item.get("mobiusd") is None:
            continue
        rows["daemon %s (%s)" % (item["metric"], item["unit"])] = float(item["mobiusd"])
        if item.get("ratio") is not None:
            rows["daemon %s (%s, ratio to redis)" % (item["metric"], item["unit"])] = float(item["ratio"])
    return rows


def systemd(bin_dir, client_dir):
    rows = {}
    output = run([os.path.join(client_dir, "mobiusd-systemd-bench"), "--mobiusd", os.path.join(bin_dir, "mobiusd"),
                  "--runs", "1"])
    for line in output.splitlines():
        match = re.match(r"\| (.+?) \| ([0-9.]+) (ms|µs) \|", line)
        if match:
            rows["systemd %s (%s)" % (match.group(1), match.group(3))] = float(match.group(2))
    return rows


def dbus(bin_dir):
    rows = {}
    recorder = os.path.join(bin_dir, "mobiusd-fixture-dbus-recorder")
    script = os.path.join(HERE, "DBusBench", "dbus-bench.py")
    for label, extra in (("flood", ["--signals", "50000"]), ("every 2 ms", ["--signals", "2000", "--rate", "500"])):
        output = run(["/usr/bin/python3", script, recorder, "--runs", "1"] + extra)
        for line in output.splitlines():
            if line.startswith("{"):
                item = json.loads(line)
                for key, unit in (("appliedPerSecond", "signals/s"), ("cpuPerSignalMicros", "µs CPU")):
                    if key in item:
                        rows["dbus %s %s (%s)" % (label, key, unit)] = float(item[key])
    return rows


def plugin_daemon(bin_dir):
    rows = {}
    output = run(["python3", os.path.join(HERE, "PluginDaemonBench", "run.py"), bin_dir, "1"])
    for line in output.splitlines():
        if line.startswith('{"scenario"'):
            item = json.loads(line)
            for key, value in item.items():
                if key in ("scenario", "runs") or not isinstance(value, (int, float)):
                    continue
                rows["plugin-daemon %s %s" % (item["scenario"], key)] = float(value)
    return rows


def plugin(bin_dir):
    rows = {}
    bench = os.path.join(bin_dir, "mobiusd-plugin-bench")
    swift_plugin = os.path.join(bin_dir, "mobiusd-fixture-plugin")
    python_plugin = os.path.join(ROOT, "Plugins", "sdk", "python", "fixture_plugin.py")
    cases = (
        ("pipe round trips", ["pipe", "100000"]),
        ("Swift SDK effects, 64 in flight", ["effects", "200000", "64", "--", swift_plugin]),
        ("Swift SDK effects, one at a time", ["effects", "20000", "1", "--", swift_plugin]),
        ("Python SDK effects, 64 in flight", ["effects", "50000", "64", "--", python_plugin]),
        ("Swift SDK update events, one at a time", ["updates", "20000", "1", "--", swift_plugin]),
        ("Swift SDK update events, updateBatch of 1024", ["updates", "1000000", "1024", "--", swift_plugin]),
    )
    for label, arguments in cases:
        match = re.search(r"= ([0-9]+) /s", run([bench] + arguments))
        rows["plugin %s (/s)" % label] = float(match.group(1))
    return rows


SUITES = {
    "library": lambda side, client: library(side),
    "json": lambda side, client: json_bench(side),
    "daemon": daemon,
    "systemd": systemd,
    "dbus": lambda side, client: dbus(side),
    "plugin-daemon": lambda side, client: plugin_daemon(side),
    "plugin": lambda side, client: plugin(side),
}


def lower_is_better(name):
    """A cost (time, CPU, memory) rather than a rate; a ratio to redis-server is one when the row is a cost."""
    cost = ("µs", "ms", "MB", "KB", "Micros", "Seconds", "cpu", "Cpu", "p50", "p99", "latency", "Wakeups")
    if "/s" in name or "perSecond" in name:
        return False
    return any(word in name for word in cost)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default=",".join(SUITES))
    options = parser.parse_args()
    suites = options.only.split(",")
    samples = {"A": {}, "B": {}}
    for index in range(options.runs):
        for suite in suites:
            # The order alternates (A then B, then B then A): an A/A run showed the second daemon of a pair slower on
            # some rows whichever build it is (Benchmarks/DaemonBench/README.md, "an A/A beside it").
            sides = (("A", options.a), ("B", options.b))
            for side, bin_dir in sides if index % 2 == 0 else reversed(sides):
                started = time.time()
                rows = SUITES[suite](bin_dir, options.b)
                for name, value in rows.items():
                    samples[side].setdefault(name, []).append(value)
                print("run %d/%d %s %s: %d rows in %.0f s, load %s" % (
                    index + 1, options.runs, suite, side, len(rows), time.time() - started,
                    os.getloadavg()[0]), file=sys.stderr, flush=True)
    names = [name for name in samples["B"] if name in samples["A"]]
    print("| row | A median | B median | B/A | better |")
    print("|---|---:|---:|---:|---|")
    for name in names:
        a = statistics.median(samples["A"][name])
        b = statistics.median(samples["B"][name])
        ratio = b / a if a else float("nan")
        better = "B" if (ratio < 1) == lower_is_better(name) else "A"
        print("| %s | %.4g | %.4g | %.3f | %s |" % (name, a, b, ratio, better if abs(ratio - 1) > 0.0005 else "="))
    print(json.dumps({"runs": options.runs, "samples": samples}))


if __name__ == "__main__":
    main()
