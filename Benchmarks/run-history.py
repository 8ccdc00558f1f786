#!/usr/bin/env python3
"""model {"at":N} with N a replay of EVENTS journaled events behind a snapshot, against a release mobiusd: its
latency, and the latency of `ping` on another connection meanwhile against `ping` with nothing else running.

Usage: Benchmarks/run-history.py MOBIUSD [--runs 5] [--events 100000] [--pings 3000] [--history-nice N]
                                  [--update-plugin python|swift]

Each run starts a daemon on a fresh state directory (counter app, snapshots every EVENTS + 50,000 events, fsync
never: the replay reads the files either way), journals enough increments for one snapshot and EVENTS more after
it, then measures:
  - `model {"at":N}`, N the seq EVENTS after the snapshot (the head is one later, so N is replayed, not answered
    from the loop's model), asked 5 times one after another;
  - `ping` one at a time on a second connection, PINGS of them alone before and PINGS after, and while a third process asks
    `model {"at":N}` back to back (the history thread is then replaying nearly all the time), until at least PINGS
    pings and 5 replays are done. --history-nice N sets the history thread's nice value first (root may lower it),
    to compare priorities.
With --update-plugin the app's update is the plugin benchmark's update plugin (PluginDaemonBench: `python`, its
bench_plugin.py on the Python SDK, or `swift`, mobiusd-bench-plugin beside MOBIUSD; each adds 1 to a number for
{"type":"add"}): the replay then goes through a process of that plugin of its own, in batches.
It prints each run's figures and the medians over the runs. Docs: docs/durability.md, "The model at any seq".
"""
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time


class Client:
    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX)
        self.socket.connect(path)
        self.reader = self.socket.makefile("rb")

    def request(self, line):
        self.socket.sendall((line + "\n").encode())
        return json.loads(self.reader.readline())

    line = b'{"type":"increment"}\n'

    def increments(self, count, batch=2000):
        line = self.line
        while count > 0:
            size = min(batch, count)
            self.socket.sendall(line * size)
            for _ in range(size):
                reply = self.reader.readline()
            count -= size
        return json.loads(reply)


def wait_for_socket(path, process):
    for _ in range(500):
        if process.poll() is not None:
            sys.exit(f"mobiusd exited: {process.returncode}")
        try:
            return Client(path)
        except OSError:
            time.sleep(0.01)
    sys.exit("mobiusd did not listen")


def ask_back_to_back(path, line, stop, started, answered):
    client = Client(path)
    started.set()
    while not stop.is_set():
        reply = client.request(line)
        assert reply.get("ok"), reply
        answered.value += 1


def pings(client, count):
    latencies = []
    for _ in range(count):
        started = time.perf_counter_ns()
        client.request("ping")
        latencies.append((time.perf_counter_ns() - started) / 1000)
    return latencies


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def renice_thread(pid, name, nice):
    """Sets the nice value of the daemon's thread `name` (an A/B of the history thread's priority)."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/comm") as file:
            if file.read().strip() == name:
                os.setpriority(os.PRIO_PROCESS, int(tid), nice)
                return
    sys.exit(f"no thread {name} in {pid}")


def update_plugin(mobiusd, which):
    """The config members of the bench's update plugin `which` (python or swift)."""
    here = os.path.dirname(os.path.abspath(__file__))
    if which == "python":
        plugin = {"exec": [os.path.join(here, "PluginDaemonBench", "bench_plugin.py")],
                  "env": {"PYTHONPATH": os.path.join(os.path.dirname(here), "Plugins", "sdk", "python")}}
    elif which == "swift":
        plugin = {"exec": [os.path.join(os.path.dirname(mobiusd), "mobiusd-bench-plugin")]}
    else:
        sys.exit(f"--update-plugin takes python or swift, not {which}")
    return {"app": "bench", "model": 0, "update": {"plugin": "app"}, "plugins": {"app": plugin}}


def run(mobiusd, events, ping_count, history_nice, plugin):
    with tempfile.TemporaryDirectory(prefix="history-bench.") as scratch:
        config = os.path.join(scratch, "c.json")
        snapshot_every = events + 50_000
        members = update_plugin(mobiusd, plugin) if plugin else {"update": {"builtin": "counter"}}
        if plugin:
            Client.line = b'{"type":"add"}\n'
        with open(config, "w") as file:
            json.dump(dict(members, state={"snapshotEvents": snapshot_every, "fsync": "never"}), file)
        path = os.path.join(scratch, "s.sock")
        process = subprocess.Popen(
            [mobiusd, "--config", config, "--socket", path, "--state-dir", os.path.join(scratch, "state")],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(scratch, "stderr"), "w"))
        try:
            client = wait_for_socket(path, process)
            client.increments(snapshot_every)
            client.increments(1)  # the pass after the threshold takes the snapshot
            for _ in range(1000):
                base = client.request("status")["state"]["snapshotSeq"]
                if base > 0:
                    break
                time.sleep(0.01)
            target = client.increments(base + events - client.request("ping")["seq"])["seq"]
            assert target == base + events, (target, base)
            # One event past it: the head's own model is answered from the loop, an earlier one by a replay.
            client.increments(1)
            line = json.dumps({"at": target})
            model_at = []
            for _ in range(5):
                started = time.perf_counter_ns()
                reply = client.request("model " + line)
                model_at.append((time.perf_counter_ns() - started) / 1e6)
                assert reply["model"] == target, reply
            # Pings alone, before and after the pings beside replays, after a moment to settle (the ingest's last
            # passes and the model requests above).
            time.sleep(1)
            alone = pings(client, ping_count)
            stop = multiprocessing.Event()
            started = multiprocessing.Event()
            answered = multiprocessing.Value("i", 0)
            asker = multiprocessing.Process(
                target=ask_back_to_back, args=(path, "model " + line, stop, started, answered))
            asker.start()
            started.wait()
            if history_nice is not None:
                renice_thread(process.pid, "mobiusd-history", history_nice)
            # Pings until at least 5 replays have run meanwhile (and at least PINGS pings were sent).
            before = answered.value
            busy = []
            while len(busy) < ping_count or answered.value - before < 5:
                busy += pings(client, 100)
            replays = answered.value - before
            stop.set()
            asker.join()
            time.sleep(1)
            alone += pings(client, ping_count)
            return {
                "model_at_ms": statistics.median(model_at),
                "ping_alone_p50_us": percentile(alone, 0.5), "ping_alone_p99_us": percentile(alone, 0.99),
                "ping_busy_p50_us": percentile(busy, 0.5), "ping_busy_p99_us": percentile(busy, 0.99),
                "replays_meanwhile": replays, "pings_meanwhile": len(busy),
            }
        finally:
            process.terminate()
            process.wait()


def main():
    arguments = sys.argv[1:]
    if not arguments or arguments[0].startswith("-"):
        sys.exit(__doc__)
    mobiusd = arguments[0]
    options = dict(zip(arguments[1::2], arguments[2::2]))
    runs = int(options.get("--runs", 5))
    events = int(options.get("--events", 100_000))
    ping_count = int(options.get("--pings", 3000))
    history_nice = int(options["--history-nice"]) if "--history-nice" in options else None
    plugin = options.get("--update-plugin")
    print(f"load: {os.getloadavg()}")
    results = []
    for index in range(runs):
        result = run(mobiusd, events, ping_count, history_nice, plugin)
        results.append(result)
        print(f"run {index + 1}: " + ", ".join(f"{key} {value:.1f}" for key, value in result.items()), flush=True)
    print("median: " + ", ".join(
        f"{key} {statistics.median(r[key] for r in results):.1f}" for key in results[0]))
    print(f"load: {os.getloadavg()}")


if __name__ == "__main__":
    main()
