#!/usr/bin/python3
"""D-Bus source benchmark (issue 8, item 9): a flood of signals on a private bus into mobiusd's model, against what
dbus-monitor receives on the same bus in the same run; CPU per signal of the daemon and of its threads; wake-ups
of an idle daemon with a connected source.

Usage: dbus-bench.py RECORDER [--runs N] [--signals N] [--rate PER_SECOND]
RECORDER is the built mobiusd-fixture-dbus-recorder (a JSON app that applies every event). Needs dbus-daemon,
dbus-monitor and python3-dbus (for the flood, Tests/Fixtures/DBusPeer/dbus-peer.py). Prints a table and JSON lines.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = os.path.join(HERE, "..", "..", "Tests", "Fixtures", "DBusPeer", "dbus-peer.py")
TICK = os.sysconf("SC_CLK_TCK")


def request(path, line):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(path)
        client.sendall(line.encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = client.recv(65536)
            if not chunk:
                break
            data += chunk
        return json.loads(data)


def threads(pid):
    """{thread name: (cpu seconds, context switches)} of every thread of pid."""
    result = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                stat = f.read()
            with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
                status = f.read()
        except FileNotFoundError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        cpu = (int(fields[11]) + int(fields[12])) / TICK
        switches = sum(int(line.split()[1]) for line in status.splitlines() if "ctxt_switches" in line)
        old = result.get(name, (0, 0))
        result[name] = (old[0] + cpu, old[1] + switches)
    return result


def source_status(path):
    return request(path, "status")["dbus"]["flood"]


def one_run(recorder, signals, scratch, rate):
    address = "unix:path=%s/bus" % scratch
    bus_pid = int(subprocess.check_output(
        ["dbus-daemon", "--session", "--fork", "--print-pid=1", "--nopidfile", "--address=" + address]).strip())
    monitor_out = open(os.path.join(scratch, "monitor.out"), "w")
    monitor = subprocess.Popen(
        ["dbus-monitor", "--address", address, "type='signal',interface='org.mobiusd.Test',member='Flood'"],
        stdout=monitor_out, stderr=subprocess.DEVNULL)
    config = os.path.join(scratch, "bench.json")
    with open(config, "w") as f:
        json.dump({"dbus": [{"bus": address, "type": "flood", "name": "flood",
                             "match": {"interface": "org.mobiusd.Test", "member": "Flood"}}]}, f)
    sock = os.path.join(scratch, "x.sock")
    daemon = subprocess.Popen([recorder, "--config", config, "--socket", sock, "--ephemeral"],
                              stdout=subprocess.DEVNULL, stderr=open(os.path.join(scratch, "daemon.err"), "w"))
    try:
        deadline = time.time() + 20
        while True:
            try:
                if source_status(sock)["state"] == "connected":
                    break
            except (OSError, KeyError, ValueError):
                pass
            if time.time() > deadline:
                sys.exit("the daemon's source did not connect")
            time.sleep(0.02)
        time.sleep(0.5)
        idle_before = threads(daemon.pid)
        time.sleep(2)
        idle_after = threads(daemon.pid)
        idle_switches = sum(idle_after[n][1] - idle_before.get(n, (0, 0))[1] for n in idle_after)
        idle_cpu = sum(idle_after[n][0] - idle_before.get(n, (0, 0))[0] for n in idle_after)
        before = threads(daemon.pid)
        start = time.time()
        if rate:
            subprocess.check_call(["/usr/bin/python3", PEER, "paced", address, str(signals), str(rate)])
        else:
            subprocess.check_call(["/usr/bin/python3", PEER, "flood", address, str(signals)])
        sent = time.time()
        while True:
            status = source_status(sock)
            if status["signals"] + status["dropped"] >= signals:
                break
            if time.time() - start > 120:
                sys.exit("not every signal arrived: %s" % status)
            time.sleep(0.005)
        done = time.time()
        after = threads(daemon.pid)
        model = request(sock, "model")["model"]
        time.sleep(0.3)
        monitor.terminate()
        monitor.wait()
        monitor_out.close()
        with open(os.path.join(scratch, "monitor.out")) as f:
            seen = sum(1 for line in f if "member=Flood" in line)
        cpu = {name: after[name][0] - before.get(name, (0, 0))[0] for name in after}
        return {
            "signals": signals, "applied": model["count"], "dropped": status["dropped"], "monitorSaw": seen,
            "sendSeconds": round(sent - start, 3), "applySeconds": round(done - start, 3),
            "appliedPerSecond": round(model["count"] / (done - start)),
            "cpuPerSignalMicros": round(sum(cpu.values()) / signals * 1e6, 2),
            "cpuPerSignalByThreadMicros": {name: round(value / signals * 1e6, 2) for name, value in cpu.items()
                                           if value > 0},
            "idleWakeups2s": idle_switches, "idleCpuSeconds2s": round(idle_cpu, 3),
        }
    finally:
        daemon.terminate()
        daemon.wait()
        if monitor.poll() is None:
            monitor.kill()
        os.kill(bus_pid, 9)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("recorder")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--signals", type=int, default=50000)
    parser.add_argument("--rate", type=float, default=0, help="signals per second (default: as fast as possible)")
    options = parser.parse_args()
    results = []
    for _ in range(options.runs):
        with tempfile.TemporaryDirectory(prefix="mobiusd-dbus-bench") as scratch:
            results.append(one_run(os.path.abspath(options.recorder), options.signals, scratch, options.rate))
        print(json.dumps(results[-1]), flush=True)
    median = lambda key: statistics.median(r[key] for r in results)
    what = "%g signals/s" % options.rate if options.rate else "flood"
    print("D-Bus %s, %d signals, median of %d runs (2 s idle sample per run)" % (what, options.signals, options.runs))
    print("  applied/s %d   (dbus-monitor saw %d of %d; the daemon applied %d, dropped %d)" % (
        median("appliedPerSecond"), median("monitorSaw"), options.signals, median("applied"), median("dropped")))
    print("  sender done after %.3f s, daemon done after %.3f s" % (median("sendSeconds"), median("applySeconds")))
    print("  CPU per signal %.2f us; idle: %d wake-ups, %.3f s CPU in 2 s" % (
        median("cpuPerSignalMicros"), median("idleWakeups2s"), median("idleCpuSeconds2s")))


if __name__ == "__main__":
    main()
