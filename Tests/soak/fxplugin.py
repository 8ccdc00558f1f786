#!/usr/bin/python3
"""The soak's effect plugin: handles {"type":"fx.NAME","id":ID,"do":MODE} (NAME is options.name) and records each
effect it carries out as a line "ID TIME" (TIME: seconds since 1970) in the file options.record, before it answers.

MODE:
  ok       records, answers {}                       events  records, answers with an event {"type":"fxdone"}
  slow     records and answers options.slowSeconds (default 0.5) later, from a thread of its own
  error    answers a JSON-RPC error (the daemon reports the effect failed: PluginError)
  hang     never answers (the daemon times it out: Timeout)
  crash    exits at once (its effects in flight fail: PluginExited)
  flood    sends options.floodCount (default 500) events {"type":"flood"} of its own, then records and answers
  lie      answers what the protocol refuses: a result for an id the daemon never used, a result whose events
           are not an array, or a line that is not JSON (chosen by ID); the daemon restarts it (ProtocolViolation)
  close    closes its stdout and keeps running (the daemon ends it: PluginExited)
"""
import json
import os
import sys
import threading
import time
import zlib

lock = threading.Lock()
options = {}
record_file = None


def send(message):
    message["jsonrpc"] = "2.0"
    line = json.dumps(message, separators=(",", ":")) + "\n"
    with lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def record(effect_id):
    with lock:
        os.write(record_file, ("%s %.6f\n" % (effect_id, time.time())).encode())


def finish(mid, effect_id, events=None):
    record(effect_id)
    send({"id": mid, "result": {"events": events} if events else {}})


def run(mid, effect):
    effect_id, mode = str(effect.get("id")), effect.get("do", "ok")
    if mode == "ok":
        finish(mid, effect_id)
    elif mode == "events":
        finish(mid, effect_id, [{"type": "fxdone", "id": effect_id}])
    elif mode == "slow":
        delay = float(options.get("slowSeconds", 0.5))
        threading.Timer(delay, finish, (mid, effect_id)).start()
    elif mode == "error":
        send({"id": mid, "error": {"code": -32000, "message": "fx %s failed on purpose" % effect_id}})
    elif mode == "hang":
        pass
    elif mode == "crash":
        sys.stderr.write("<4>fx %s: crashing on purpose\n" % effect_id)
        sys.stderr.flush()
        os._exit(9)
    elif mode == "flood":
        line = '{"jsonrpc":"2.0","method":"event","params":{"event":{"type":"flood"}}}\n'
        with lock:
            sys.stdout.write(line * int(options.get("floodCount", 500)))
            sys.stdout.flush()
        finish(mid, effect_id)
    elif mode == "lie":
        kind = zlib.crc32(effect_id.encode()) % 3
        with lock:
            if kind == 0:
                sys.stdout.write('{"jsonrpc":"2.0","id":%d,"result":{}}\n' % (mid + 1_000_000_000))
            elif kind == 1:
                sys.stdout.write('{"jsonrpc":"2.0","id":%d,"result":{"events":"none"}}\n' % mid)
            else:
                sys.stdout.write("I did it, honest\n")
            sys.stdout.flush()
    elif mode == "close":
        with lock:
            os.close(1)
            sys.stdout = open(os.devnull, "w")


def main():
    global options, record_file
    for line in sys.stdin:
        message = json.loads(line)
        method, params, mid = message.get("method"), message.get("params") or {}, message.get("id")
        if method == "initialize":
            options = params.get("options") or {}
            record_file = os.open(options["record"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            send({"id": mid, "result": {"protocol": 1, "name": "fx", "version": "1",
                                        "effects": ["fx." + options["name"]]}})
        elif method == "effect":
            run(mid, params.get("effect") or {})
        elif method == "shutdown":
            send({"id": mid, "result": {}})


if __name__ == "__main__":
    if not os.environ.get("MOBIUSD_PLUGIN"):
        sys.stderr.write("fxplugin.py is a mobiusd plugin; run it from mobiusd\n")
        sys.exit(2)
    main()
