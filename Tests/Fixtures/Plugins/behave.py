#!/usr/bin/env python3
"""A mobiusd plugin whose behaviour the tests choose, through `options` and the effects they send.

options.mode (how the plugin starts):
  normal       answers initialize with options.effects (default ["job"]), protocol options.protocol (default 1)
  exit-early   exits 3 before answering initialize
  silent       never answers initialize
  garbage      answers initialize with a line that is not JSON
  ignore-term  ignores SIGTERM and stdin EOF (the host must SIGKILL it)
  update       is an update plugin (options.batch: also updateBatch); events {"type":"add","n":N} add N to
               model.total, {"type":"reject"} are rejected, {"type":"die"} kills the plugin the first time it
               sees one (a marker file in options.marker remembers), {"type":"poison"} kills it every time,
               {"type":"hang"} makes it stop answering every time, {"type":"hangOnce"} the first time (a marker
               file in options.marker remembers), staying alive (a line goes to the file options.hangs when it
               hangs), {"type":"effect","effect":E} emits E, {"type":"answerTwice"} answers its request a second
               time with a total 1000 higher, {"type":"answerAhead"} first answers an id 1000 past its request's
               (one the host never sent); the
               model keeps the last 50 other events in "seen"; options.calls names a file that gets "METHOD N" per
               update request, options.lineLengths one that gets each update request line's length in bytes,
               options.delay seconds to wait before answering each update request
Effects {"type":"job","do":X}:
  ok (default)  result {} ; events  two event notifications then result.events [one more]
  error         JSON-RPC error ; crash  exit 9 while it is in flight ; hang  never answers
  progress      sends progress every 0.2 s for options.progressFor seconds (default 1), then answers
  flood         writes options.count unsolicited events as fast as it can
  huge          writes one line of options.bytes bytes ; pollute  writes "hello" to stdout
  bad-events    answers with a result whose "events" is not an array (a protocol violation)
  child         starts `sleep 300` in its process group and writes its pid to options.childPidFile, then exits
  stubborn-child  starts a child in its process group that ignores SIGTERM, writes its pid to options.childPidFile
                and answers (the plugin itself goes on; its child must be SIGKILLed)
  close-stdout  closes its stdout and keeps running (never answers again)
  controls      writes a stdout line with a NUL, an ESC and a BEL byte and bytes that are not UTF-8, and a stderr
                line with the same bytes
Cancels are recorded: each `cancel` notification appends its id to options.cancelFile.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

if not os.environ.get("MOBIUSD_PLUGIN"):
    sys.stderr.write("behave.py is a mobiusd plugin; run it from mobiusd\n")
    sys.exit(2)

lock = threading.Lock()
options = {}
stdout_closed = False


def send(message):
    message["jsonrpc"] = "2.0"
    with lock:
        if stdout_closed:
            return
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def answer(mid, result):
    send({"id": mid, "result": result})


def run_effect(mid, effect):
    action = effect.get("do", "ok") if isinstance(effect, dict) else "ok"
    if action == "ok":
        answer(mid, {})
    elif action == "events":
        send({"method": "event", "params": {"id": mid, "event": {"type": "fromPlugin", "n": 1}}})
        send({"method": "event", "params": {"id": mid, "event": {"type": "fromPlugin", "n": 2}}})
        answer(mid, {"events": [{"type": "fromPlugin", "n": 3}]})
    elif action == "error":
        send({"id": mid, "error": {"code": -32000, "message": "the job failed on purpose"}})
    elif action == "crash":
        sys.stderr.write("<3>about to crash on purpose\n")
        sys.stderr.flush()
        os._exit(9)
    elif action == "hang":
        return
    elif action == "progress":
        def keep_going():
            end = time.time() + float(options.get("progressFor", 1))
            while time.time() < end:
                time.sleep(0.2)
                send({"method": "progress", "params": {"id": mid}})
            answer(mid, {"events": [{"type": "progressed"}]})
        threading.Thread(target=keep_going, daemon=True).start()
    elif action == "flood":
        # A thousand lines per write: as fast as the pipe takes them.
        count = int(options.get("count", 100000))
        for start in range(0, count, 1000):
            lines = "".join('{"jsonrpc":"2.0","method":"event","params":{"event":{"type":"flood","n":%d}}}\n' % n
                            for n in range(start, min(count, start + 1000)))
            with lock:
                sys.stdout.write(lines)
                sys.stdout.flush()
        answer(mid, {})
    elif action == "huge":
        with lock:
            sys.stdout.write("x" * int(options.get("bytes", 1 << 20)) + "\n")
            sys.stdout.flush()
    elif action == "bad-events":
        answer(mid, {"events": "none"})
    elif action == "pollute":
        with lock:
            sys.stdout.write("hello\n")
            sys.stdout.flush()
    elif action == "child":
        child = subprocess.Popen(["sleep", "300"])
        with open(options["childPidFile"], "w") as f:
            f.write(str(child.pid))
        os._exit(0)
    elif action == "stubborn-child":
        ignoring = "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); " \
            "open(sys.argv[1], 'w').write(str(__import__('os').getpid())); time.sleep(300)"
        subprocess.Popen([sys.executable, "-c", ignoring, options["childPidFile"]], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        answer(mid, {})
    elif action == "close-stdout":
        global stdout_closed
        with lock:
            stdout_closed = True
            os.close(1)
    elif action == "controls":
        # stderr first: the stdout line is a violation, and the host kills the plugin for it.
        sys.stderr.buffer.write(b"<4>stderr \x00 nul \x1b[31m esc \x07 bel \xff\xc3 not UTF-8 \xc3\xa9\n")
        sys.stderr.flush()
        with lock:
            sys.stdout.buffer.write(b"not json \x00 nul \x1b[31m esc \x07 bel \xff\xc3 not UTF-8 \xc3\xa9\n")
            sys.stdout.flush()


def first_time(marker):
    """Whether `marker` did not exist yet (and makes it)."""
    if not marker or os.path.exists(marker):
        return False
    open(marker, "w").close()
    return True


def hang():
    """Stops answering and stays alive (until a signal ends it)."""
    if options.get("hangs"):
        with open(options["hangs"], "a") as f:
            f.write("hang\n")
    sys.stderr.write("<4>hanging on purpose\n")
    sys.stderr.flush()
    while True:
        time.sleep(60)


def run_update(mid, method, params):
    model = params.get("model") or {}
    if method == "init":
        answer(mid, {"model": {"total": model.get("total", 0) if isinstance(model, dict) else 0, "seen": []}})
        return
    events = params["events"] if method == "updateBatch" else [params["event"]]
    time.sleep(options.get("delay", 0))
    total = model.get("total", 0)
    seen = list(model.get("seen", []))
    results = []
    for event in events:
        kind = event.get("type") if isinstance(event, dict) else None
        if kind not in ("reject", "add"):
            seen = (seen + [event])[-50:]
        if kind == "poison":
            sys.stderr.write("<3>poisoned by this event\n")
            sys.stderr.flush()
            os._exit(7)
        if kind == "die" and first_time(options.get("marker")):
            os._exit(7)
        if kind == "hang" or (kind == "hangOnce" and first_time(options.get("marker"))):
            hang()
        if kind == "reject":
            results.append({"error": {"code": 1, "message": "rejected by the update plugin"}})
        elif kind == "add":
            total += int(event.get("n", 1))
            results.append({})
        elif kind == "emit":
            results.append({"effects": [{"type": "job", "do": "ok"}]})
        elif kind == "effect":
            results.append({"effects": [event.get("effect")]})
        else:
            results.append({})
    with open(options["calls"], "a") if options.get("calls") else open(os.devnull, "w") as log:
        log.write("%s %d\n" % (method, len(events)))
    kinds = [event.get("type") if isinstance(event, dict) else None for event in events]
    if "answerAhead" in kinds:
        answer(mid + 1000, {"model": {"total": total + 1000, "seen": seen}})
    if method == "updateBatch":
        answer(mid, {"model": {"total": total, "seen": seen}, "results": results})
    elif "error" in results[0]:
        send({"id": mid, "error": results[0]["error"]})
    else:
        answer(mid, dict({"model": {"total": total, "seen": seen}}, **results[0]))
    if "answerTwice" in kinds:
        if method == "updateBatch":
            answer(mid, {"model": {"total": total + 1000, "seen": seen}, "results": results})
        else:
            answer(mid, {"model": {"total": total + 1000, "seen": seen}})


def main():
    global options
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        params = message.get("params") or {}
        mid = message.get("id")
        if method == "initialize":
            options = params.get("options") or {}
            mode = options.get("mode", "normal")
            sys.stderr.write("<6>initializing in mode %s\n" % mode)
            sys.stderr.flush()
            if mode == "exit-early":
                sys.exit(3)
            if mode == "silent":
                continue
            if mode == "garbage":
                with lock:
                    sys.stdout.write("this is not json\n")
                    sys.stdout.flush()
                continue
            if mode == "ignore-term":
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
            answer(mid, {"protocol": options.get("protocol", 1), "name": "behave", "version": "1",
                         "effects": options.get("effects", [] if mode == "update" else ["job"]),
                         "update": mode == "update",
                         "batch": bool(options.get("batch"))})
        elif method == "effect":
            run_effect(mid, params.get("effect"))
        elif method in ("init", "update", "updateBatch"):
            if options.get("lineLengths") and method != "init":
                with open(options["lineLengths"], "a") as f:
                    f.write("%d\n" % len(line.rstrip("\n").encode()))
            run_update(mid, method, params)
        elif method == "cancel":
            if options.get("cancelFile"):
                with open(options["cancelFile"], "a") as f:
                    f.write("%s\n" % params.get("id"))
        elif method == "shutdown":
            answer(mid, {})
    if options.get("mode") == "ignore-term":
        while True:
            time.sleep(1)


main()
