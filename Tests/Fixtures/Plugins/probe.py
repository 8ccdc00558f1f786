#!/usr/bin/python3
"""A mobiusd plugin that reports what the daemon started it with: effect "probe" answers with an event carrying the
Uid, Gid, Groups and SigBlk lines of /proc/self/status, the descriptors it had open when it started (and what 0-2 are), and
its environment as it was exec'd (/proc/self/environ, which Python's own changes to os.environ never reach). For the
tests of plugin isolation (docs/protocol.md 2.1); docs/security.md says what they show.

/usr/bin/python3, not `env python3`: a version manager's shim on PATH would exec Python with variables of its own,
and the environment must be exactly the one the daemon passed.
"""
import json
import os
import sys

if not os.environ.get("MOBIUSD_PLUGIN"):
    sys.stderr.write("probe.py is a mobiusd plugin; run it from mobiusd\n")
    sys.exit(2)


def open_descriptors():
    """The descriptors open now, without the one the listing itself used (gone once listdir has closed it)."""
    names = os.listdir("/proc/self/fd")
    open_now = []
    for name in names:
        try:
            os.lstat("/proc/self/fd/" + name)
        except FileNotFoundError:
            continue
        open_now.append(int(name))
    return sorted(open_now)


# Taken before the loop reads anything: what the daemon handed over, and what 0-2 are ("pipe").
STARTED_WITH = open_descriptors()
STDIO = [os.readlink("/proc/self/fd/%d" % fd).partition(":")[0] for fd in range(3)]


def status_lines():
    fields = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("Uid", "Gid", "Groups", "SigBlk"):
                fields[key.lower()] = value.split()
    return fields


def environment():
    with open("/proc/self/environ", "rb") as environ:
        return sorted(entry.decode("utf-8", "replace") for entry in environ.read().split(b"\0") if entry)


def answer(mid, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}) + "\n")
    sys.stdout.flush()


for line in iter(sys.stdin.readline, ""):
    message = json.loads(line)
    method = message.get("method")
    if method == "initialize":
        answer(message["id"], {"protocol": 1, "name": "probe", "version": "1", "effects": ["probe"]})
    elif method == "effect":
        event = dict(type="probe", fds=STARTED_WITH, stdio=STDIO, environ=environment(), **status_lines())
        answer(message["id"], {"events": [event]})
    elif method == "shutdown":
        answer(message["id"], {})
