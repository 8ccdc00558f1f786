#!/usr/bin/python3
"""The model on D-Bus (config `expose`, issue 25 item 3), measured next to the control socket: round trips per
second of `org.mobiusd.App1.Send` (one at a time and pipelined) against socket events, and the latency from an event
written on the socket to the PropertiesChanged signal a D-Bus client receives, against the model line a socket
subscriber receives for the same event.

Usage: expose-bench.py MOBIUSD [--runs N] [--calls N] [--signals N] [--interval SECONDS]
MOBIUSD is the built daemon (release). Each run starts a private dbus-daemon and mobiusd running the built-in
counter with --ephemeral (no journal: the figures are the D-Bus path, not fdatasync), exposed as
org.mobiusd.app.Bench with its model as the property Count. Clients are python3-dbus and plain sockets, in Python on
both sides. Prints a table of medians and one JSON line per run. Needs dbus-daemon, python3-dbus, python3-gi.
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

import dbus
import dbus.mainloop.glib

NAME = "org.mobiusd.app.Bench"
PATH = "/bench"
INCREMENT = '{"type":"increment"}'
TICK = os.sysconf("SC_CLK_TCK")

LISTENER = r"""
import sys, time, socket, json
import dbus, dbus.mainloop.glib
from gi.repository import GLib
kind, address, name, sock = sys.argv[1:5]
if kind == "dbus":
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(address)
    def changed(interface, values, invalidated):
        now = time.monotonic_ns()
        if "Seq" in values:
            print(int(values["Seq"]), now, flush=True)
    bus.add_signal_receiver(changed, "PropertiesChanged", "org.freedesktop.DBus.Properties", name, "/bench")
    print("ready", flush=True)
    GLib.MainLoop().run()
else:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(sock)
    client.sendall(b"subscribe\n")
    reader = client.makefile("rb")
    reader.readline()
    print("ready", flush=True)
    for line in reader:
        now = time.monotonic_ns()
        item = json.loads(line)
        print(item["seq"], now, flush=True)
"""


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class SocketClient:
    def __init__(self, path):
        self.client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.client.connect(path)
        self.reader = self.client.makefile("rb")

    def request(self, line):
        self.client.sendall(line.encode() + b"\n")
        return json.loads(self.reader.readline())


def one_at_a_time(call, count):
    """(calls per second, p50 µs, p99 µs) of `count` calls made one after the other."""
    times = []
    start = time.monotonic()
    for _ in range(count):
        began = time.monotonic_ns()
        call()
        times.append((time.monotonic_ns() - began) / 1000)
    elapsed = time.monotonic() - start
    return count / elapsed, percentile(times, 0.5), percentile(times, 0.99)


def dbus_pipelined(address, count):
    """Send calls per second with every call issued before the first reply is read."""
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(address)
    target = bus.get_object(NAME, PATH, introspect=False)
    loop = GLib.MainLoop()
    left = [count]
    failed = []

    def answered(*_):
        left[0] -= 1
        if left[0] == 0:
            loop.quit()

    def error(problem):
        failed.append(problem.get_dbus_name())
        answered()

    start = time.monotonic()
    for _ in range(count):
        target.Send(INCREMENT, dbus_interface="org.mobiusd.App1", reply_handler=answered, error_handler=error,
                    timeout=300)
    loop.run()
    elapsed = time.monotonic() - start
    bus.close()
    if failed:
        raise RuntimeError("pipelined Send failed: %s" % failed[:3])
    return count / elapsed


def socket_pipelined(path, count):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(path)
    reader = client.makefile("rb")
    payload = (INCREMENT + "\n").encode() * count
    start = time.monotonic()
    client.sendall(payload)
    for _ in range(count):
        reader.readline()
    elapsed = time.monotonic() - start
    client.close()
    return count / elapsed


def start_listener(kind, address, sock, scratch):
    out = open(os.path.join(scratch, kind + ".out"), "w+")
    child = subprocess.Popen([sys.executable, "-c", LISTENER, kind, address, NAME, sock], stdout=out,
                             stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while True:
        out.seek(0)
        if out.read().startswith("ready"):
            return child, out
        if time.time() > deadline or child.poll() is not None:
            raise RuntimeError("the %s listener did not start" % kind)
        time.sleep(0.02)


def received(out):
    out.seek(0)
    times = {}
    for line in out.read().splitlines()[1:]:
        seq, at = line.split()
        times.setdefault(int(seq), int(at))
    return times


def one_run(mobiusd, scratch, calls, signals, interval):
    address = "unix:path=%s/bus" % scratch
    bus_pid = int(subprocess.check_output(
        ["dbus-daemon", "--session", "--fork", "--print-pid=1", "--nopidfile", "--address=" + address]).strip())
    config = os.path.join(scratch, "bench.json")
    with open(config, "w") as f:
        json.dump({"app": "bench", "update": {"builtin": "counter"},
                   "expose": {"bus": address, "name": NAME, "path": PATH,
                              "properties": {"Count": {"path": "", "type": "x"}}}}, f)
    sock = os.path.join(scratch, "x.sock")
    daemon = subprocess.Popen([mobiusd, "--config", config, "--socket", sock, "--ephemeral"],
                              stdout=subprocess.DEVNULL, stderr=open(os.path.join(scratch, "daemon.err"), "w"))
    listeners = []
    try:
        deadline = time.time() + 20
        while True:
            try:
                if SocketClient(sock).request("status").get("expose", {}).get("state") == "connected":
                    break
            except OSError:
                pass
            if time.time() > deadline:
                raise RuntimeError("the daemon did not serve the name")
            time.sleep(0.02)
        result = {}
        client = SocketClient(sock)
        before = cpu_seconds(daemon.pid)
        result["socket_rps"], result["socket_p50_us"], result["socket_p99_us"] = one_at_a_time(
            lambda: client.request(INCREMENT), calls)
        result["socket_cpu_us"] = (cpu_seconds(daemon.pid) - before) / calls * 1e6

        bus = dbus.bus.BusConnection(address)
        send = bus.get_object(NAME, PATH, introspect=False).get_dbus_method("Send", "org.mobiusd.App1")
        before = cpu_seconds(daemon.pid)
        result["send_rps"], result["send_p50_us"], result["send_p99_us"] = one_at_a_time(
            lambda: send(INCREMENT), calls)
        result["send_cpu_us"] = (cpu_seconds(daemon.pid) - before) / calls * 1e6
        bus.close()

        before = cpu_seconds(daemon.pid)
        result["socket_pipelined_rps"] = socket_pipelined(sock, calls)
        result["socket_pipelined_cpu_us"] = (cpu_seconds(daemon.pid) - before) / calls * 1e6
        before, bus_before = cpu_seconds(daemon.pid), cpu_seconds(bus_pid)
        result["send_pipelined_rps"] = dbus_pipelined(address, calls)
        result["send_pipelined_cpu_us"] = (cpu_seconds(daemon.pid) - before) / calls * 1e6
        result["send_pipelined_bus_cpu_us"] = (cpu_seconds(bus_pid) - bus_before) / calls * 1e6

        dbus_listener, dbus_out = start_listener("dbus", address, sock, scratch)
        socket_listener, socket_out = start_listener("socket", address, sock, scratch)
        listeners = [dbus_listener, socket_listener]
        sent = {}
        for _ in range(signals):
            began = time.monotonic_ns()
            seq = client.request(INCREMENT)["seq"]
            sent[seq] = began
            time.sleep(interval)
        time.sleep(0.5)
        for kind, out in (("signal", dbus_out), ("subscriber", socket_out)):
            times = received(out)
            latencies = [(times[seq] - at) / 1000 for seq, at in sent.items() if seq in times]
            result[kind + "_seen"] = len(latencies)
            result[kind + "_p50_us"] = percentile(latencies, 0.5) if latencies else None
            result[kind + "_p99_us"] = percentile(latencies, 0.99) if latencies else None
        return result
    finally:
        for child in listeners:
            child.kill()
        daemon.terminate()
        daemon.wait(timeout=20)
        os.kill(bus_pid, 9)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mobiusd")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--calls", type=int, default=10000)
    parser.add_argument("--signals", type=int, default=1000)
    parser.add_argument("--interval", type=float, default=0.002)
    args = parser.parse_args()
    runs = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="expose-bench") as scratch:
            result = one_run(args.mobiusd, scratch, args.calls, args.signals, args.interval)
        print(json.dumps(result), flush=True)
        runs.append(result)

    def median(key):
        values = [run[key] for run in runs if run[key] is not None]
        return statistics.median(values) if values else float("nan")

    print("medians of %d runs (%d calls, %d paced events %.1f ms apart):" % (
        args.runs, args.calls, args.signals, args.interval * 1000))
    print("| path | one at a time: /s | p50 | p99 | mobiusd CPU per event | pipelined: /s | mobiusd CPU per event |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("| socket event | %.0f | %.0f µs | %.0f µs | %.1f µs | %.0f | %.1f µs |" % (
        median("socket_rps"), median("socket_p50_us"), median("socket_p99_us"), median("socket_cpu_us"),
        median("socket_pipelined_rps"), median("socket_pipelined_cpu_us")))
    print("| D-Bus Send | %.0f | %.0f µs | %.0f µs | %.1f µs | %.0f | %.1f µs (dbus-daemon %.1f µs) |" % (
        median("send_rps"), median("send_p50_us"), median("send_p99_us"), median("send_cpu_us"),
        median("send_pipelined_rps"), median("send_pipelined_cpu_us"), median("send_pipelined_bus_cpu_us")))
    print("| event on the socket → | p50 | p99 | seen |")
    print("|---|---:|---:|---:|")
    print("| PropertiesChanged at a D-Bus client | %.0f µs | %.0f µs | %d of %d |" % (
        median("signal_p50_us"), median("signal_p99_us"), median("signal_seen"), args.signals))
    print("| model line at a socket subscriber | %.0f µs | %.0f µs | %d of %d |" % (
        median("subscriber_p50_us"), median("subscriber_p99_us"), median("subscriber_seen"), args.signals))


if __name__ == "__main__":
    main()
