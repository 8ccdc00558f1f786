#!/usr/bin/env python3
"""Plugin benchmarks through the daemon (issue #5): effects/s through a plugin (Swift SDK, Python SDK), update-plugin events/s one at a
time and batched, daemon CPU per plugin effect, next to the bare pipe round trip measured in the same run.

Usage: run.py BIN_DIR RUNS. Prints a table of medians, then one JSON line per scenario.
Each run starts a fresh daemon; the client pipelines N events with replies off, then polls `model` (effects) or
sends `ping` (updates) until all are applied. CPU is user+system time of the daemon (and of the plugin) from
/proc/PID/stat over the measured interval.
"""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def children(pid):
    found = []
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                found += [int(p) for p in f.read().split()]
        except OSError:
            pass
    return found


class Daemon:
    def __init__(self, program, config):
        self.dir = tempfile.mkdtemp(prefix="mobiusd-plugin-bench")
        path = os.path.join(self.dir, "app.json")
        with open(path, "w") as f:
            json.dump(config, f)
        self.socket = os.path.join(self.dir, "x.sock")
        self.err = open(os.path.join(self.dir, "stderr"), "w")
        self.process = subprocess.Popen(
            [program, "--config", path, "--socket", self.socket, "--ephemeral", "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=self.err)
        deadline = time.time() + 30
        while True:
            try:
                self.conn = socket.socket(socket.AF_UNIX)
                self.conn.connect(self.socket)
                break
            except OSError:
                self.conn.close()
                if time.time() > deadline or self.process.poll() is not None:
                    raise SystemExit("daemon did not start: " + open(self.err.name).read())
                time.sleep(0.01)
        self.file = self.conn.makefile("rb")
        self.request("ping")  # plugins settled: the loop runs passes only after they have

    def request(self, line):
        self.conn.sendall(line.encode() + b"\n")
        return json.loads(self.file.readline())

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.conn.close()
        self.err.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def wait_for_model(d, count, start):
    """Polls `model` until it reaches count; returns the seconds since start."""
    while True:
        model = d.request("model")["model"]
        if model >= count:
            return time.perf_counter() - start
        if time.perf_counter() - start > 300:
            raise SystemExit("stalled at %d of %d: %s" % (model, count, d.request("status")["plugins"]))
        time.sleep(0.002)


SDK_PATH = {"PYTHONPATH": os.path.join(ROOT, "Plugins", "sdk", "python")}


def effects_run(bin_dir, plugin_exec, count, concurrency):
    config = {"app": "relay", "plugins": {"worker": {"exec": plugin_exec, "concurrency": concurrency,
                                                       "maxQueued": count, "env": SDK_PATH}}}
    d = Daemon(os.path.join(bin_dir, "mobiusd-bench-relay"), config)
    plugin_pid = children(d.process.pid)
    d.request('reply "off"')
    payload = b'{"type":"go"}\n' * count
    cpu0 = cpu_seconds(d.process.pid)
    pcpu0 = sum(cpu_seconds(p) for p in plugin_pid)
    start = time.perf_counter()
    d.conn.sendall(payload)
    elapsed = wait_for_model(d, count, start)
    cpu = cpu_seconds(d.process.pid) - cpu0
    pcpu = sum(cpu_seconds(p) for p in plugin_pid) - pcpu0
    d.close()
    return {"perSecond": count / elapsed, "daemonCpuMicrosPerEffect": cpu / count * 1e6,
            "pluginCpuMicrosPerEffect": pcpu / count * 1e6}


def paced_run(bin_dir, plugin_exec, count, gap_micros):
    """One effect at a time every gap_micros: event -> effect -> plugin -> event -> model line to a subscriber.
    Reports CPU per effect of the daemon and the plugin (a trickle, where per-wake-up costs dominate) and the
    round trip from sending the event to the model line."""
    config = {"app": "relay", "plugins": {"worker": {"exec": plugin_exec, "env": SDK_PATH}}}
    d = Daemon(os.path.join(bin_dir, "mobiusd-bench-relay"), config)
    plugin_pid = children(d.process.pid)
    subscriber = socket.socket(socket.AF_UNIX)
    subscriber.connect(d.socket)
    lines = subscriber.makefile("rb")
    subscriber.sendall(b"subscribe\n")
    lines.readline()
    d.request('reply "off"')
    cpu0 = cpu_seconds(d.process.pid)
    pcpu0 = sum(cpu_seconds(p) for p in plugin_pid)
    latencies = []
    deadline = time.perf_counter()
    for done in range(1, count + 1):
        deadline += gap_micros / 1e6
        pause = deadline - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        start = time.perf_counter()
        d.conn.sendall(b'{"type":"go"}\n')
        while json.loads(lines.readline()).get("model") != done:
            pass
        latencies.append(time.perf_counter() - start)
    cpu = cpu_seconds(d.process.pid) - cpu0
    pcpu = sum(cpu_seconds(p) for p in plugin_pid) - pcpu0
    subscriber.close()
    d.close()
    latencies.sort()
    return {"daemonCpuMicrosPerEffect": cpu / count * 1e6, "pluginCpuMicrosPerEffect": pcpu / count * 1e6,
            "roundTripP50Micros": latencies[len(latencies) // 2] * 1e6,
            "roundTripP99Micros": latencies[int(len(latencies) * 0.99)] * 1e6}


def update_run(bin_dir, plugin_exec, count, max_batch):
    config = {"app": "bench", "model": 0, "update": {"plugin": "app"},
              "plugins": {"app": {"exec": plugin_exec, "maxBatch": max_batch, "env": SDK_PATH}}}
    d = Daemon(os.path.join(bin_dir, "mobiusd"), config)
    d.request('reply "off"')
    cpu0 = cpu_seconds(d.process.pid)
    start = time.perf_counter()
    d.conn.sendall(b'{"type":"add"}\n' * count)
    reply = d.request("ping")
    elapsed = time.perf_counter() - start
    cpu = cpu_seconds(d.process.pid) - cpu0
    assert reply["seq"] == count, reply
    d.close()
    return {"perSecond": count / elapsed, "daemonCpuMicrosPerEvent": cpu / count * 1e6}


def chain_run(bin_dir, plugin_exec, count):
    """The chain event -> update plugin -> effect plugin -> event: COUNT pipelined "go" events, each asking the
    update for one "work" effect whose "done" event the update counts. Every effect must run: the worker's queue
    (default maxQueued) pushes back on the client instead of failing effects."""
    config = {"app": "chain", "model": 0, "update": {"plugin": "app"},
              "plugins": {"app": {"exec": plugin_exec, "maxBatch": 1024,
                                  "env": dict(SDK_PATH, BENCH_UPDATE_ONLY="1")},
                          "worker": {"exec": plugin_exec, "env": SDK_PATH}}}
    d = Daemon(os.path.join(bin_dir, "mobiusd"), config)
    d.request('reply "off"')
    cpu0 = cpu_seconds(d.process.pid)
    start = time.perf_counter()
    d.conn.sendall(b'{"type":"go"}\n' * count)
    elapsed = wait_for_model(d, count, start)
    cpu = cpu_seconds(d.process.pid) - cpu0
    worker = d.request("status")["plugins"]["worker"]
    assert worker["handled"] == count and worker["failed"] == 0, worker
    d.close()
    return {"perSecond": count / elapsed, "daemonCpuMicrosPerEvent": cpu / count * 1e6}


def pipe_round_trips(bin_dir):
    # mobiusd-plugin-bench (Benchmarks/PluginBench) prints "pipe: N in T ms = R /s".
    out = subprocess.run([os.path.join(bin_dir, "mobiusd-plugin-bench"), "pipe", "100000"],
                         capture_output=True, text=True, check=True).stdout
    return {"perSecond": float(out.split("=")[1].split()[0])}


def main():
    bin_dir, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
    swift_plugin = [os.path.join(bin_dir, "mobiusd-bench-plugin")]
    python_plugin = [os.path.join(HERE, "bench_plugin.py")]
    scenarios = [
        ("pipe round trip (bare, one at a time)", lambda: pipe_round_trips(bin_dir)),
        ("effects, Swift SDK plugin, concurrency 256", lambda: effects_run(bin_dir, swift_plugin, 200_000, 256)),
        ("effects, Swift SDK plugin, concurrency 1", lambda: effects_run(bin_dir, swift_plugin, 20_000, 1)),
        ("effects, Swift SDK plugin, paced every 1 ms", lambda: paced_run(bin_dir, swift_plugin, 3_000, 1000)),
        ("effects, Python SDK plugin, concurrency 64", lambda: effects_run(bin_dir, python_plugin, 50_000, 64)),
        ("update plugin (Swift SDK), one at a time", lambda: update_run(bin_dir, swift_plugin, 20_000, 1)),
        ("update plugin (Swift SDK), batched", lambda: update_run(bin_dir, swift_plugin, 1_000_000, 1024)),
        ("update plugin (Python SDK), one at a time", lambda: update_run(bin_dir, python_plugin, 5_000, 1)),
        ("update plugin (Python SDK), batched", lambda: update_run(bin_dir, python_plugin, 200_000, 1024)),
        ("chain update plugin -> effect plugin (Swift SDK)", lambda: chain_run(bin_dir, swift_plugin, 20_000)),
    ]
    # PLUGIN_BENCH_ONLY=TEXT runs the pipe and the scenarios whose name contains TEXT.
    only = os.environ.get("PLUGIN_BENCH_ONLY")
    if only:
        scenarios = scenarios[:1] + [s for s in scenarios[1:] if only in s[0]]
    results = []
    for name, run in scenarios:
        samples = [run() for _ in range(runs)]
        median = {key: statistics.median(s[key] for s in samples) for key in samples[0]}
        results.append((name, median))
        figures = ", ".join("%s %.1f" % (k, v) if v < 1000 else "%s %d" % (k, v) for k, v in median.items())
        print("%-46s %s" % (name, figures), flush=True)
    pipe = results[0][1]["perSecond"]
    for name, median in results[1:]:
        if "perSecond" in median:
            print("%-46s %.2fx the pipe round-trip rate" % (name, median["perSecond"] / pipe))
    for name, median in results:
        print(json.dumps(dict({"scenario": name, "runs": runs}, **median)))


if __name__ == "__main__":
    main()
