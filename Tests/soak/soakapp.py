#!/usr/bin/python3
"""The soak's app: an update plugin (docs/plugins.md, "Update plugins") whose update the harness recomputes.

The model counts what was applied: {"n": events, "sum": sum of work events' "v", "types": {type: count},
"failed": {error code: count}}. Events:
  {"type":"work","id":ID,"v":V,"fx":[[PLUGIN,MODE],...],"upd":FAULT?}
      adds V and emits, for each fx pair k, the effect {"type":"fx.PLUGIN","id":"ID/k","do":MODE}
  {"type":"effectFailed","effect":E,"error":{"code":C,...}}   (the effect plugins' onError) counts C
  {"type":"bad"}                                              is rejected (the sender gets InvalidEvent)
  any other object with a string "type" (D-Bus signals, plugin events) is counted under its type.

`upd` makes this plugin misbehave on that event, once per event id (a marker file in options.markers
remembers, so the retry after a restart and the replay after a daemon restart go through):
  crash   exits while the event is in flight        lie    answers a result the protocol does not allow
  close   closes its stdout and keeps running       slow   waits options.slowSeconds (default 1) first
  flood   sends options.floodCount events of its own (type "ufl") first
  poison  exits every time: the daemon rejects the event alone with PluginCrashed
"""
import json
import os
import sys
import time


class Rejected(Exception):
    pass


def empty_model():
    return {"n": 0, "sum": 0, "types": {}, "failed": {}}


def apply(model, event):
    """The pure update: (model, event) -> (model, effects); raises Rejected. The model is changed in place."""
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        raise Rejected("an event is an object with a string type")
    kind = event["type"]
    if kind == "bad":
        raise Rejected("the soak app rejects bad events")
    effects = []
    model["n"] += 1
    model["types"][kind] = model["types"].get(kind, 0) + 1
    if kind == "work":
        model["sum"] += int(event.get("v", 0))
        for k, (plugin, mode) in enumerate(event.get("fx", [])):
            effects.append({"type": "fx." + plugin, "id": "%s/%d" % (event["id"], k), "do": mode})
    elif kind == "effectFailed":
        code = (event.get("error") or {}).get("code", "?")
        model["failed"][code] = model["failed"].get(code, 0) + 1
    return model, effects


def send(message):
    message["jsonrpc"] = "2.0"
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def first_time(options, event, fault):
    """Whether this is the first time `fault` hits this event (and remembers that it did)."""
    marker = os.path.join(options["markers"], "%s.%s" % (fault, event.get("id", "")))
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        return True
    except FileExistsError:
        return False


def misbehave(options, event):
    """Acts out the event's `upd` fault; returns "lie" when the answer must be one the protocol refuses."""
    fault = event.get("upd") if isinstance(event, dict) else None
    if fault == "poison":
        sys.stderr.write("<3>soakapp: poisoned by %s\n" % event.get("id"))
        sys.stderr.flush()
        os._exit(7)
    if fault not in ("crash", "close", "slow", "flood", "lie") or not first_time(options, event, fault):
        return None
    if fault == "crash":
        os._exit(9)
    if fault == "close":
        os.close(1)
        while True:
            time.sleep(1)
    if fault == "slow":
        time.sleep(float(options.get("slowSeconds", 1)))
    if fault == "flood":
        for n in range(int(options.get("floodCount", 200))):
            send({"method": "event", "params": {"event": {"type": "ufl", "n": n}}})
    return fault


def update_batch(options, model, events):
    results = []
    lie = False
    for event in events:
        lie = misbehave(options, event) == "lie" or lie
        try:
            model, effects = apply(model, event)
            results.append({"effects": effects} if effects else {})
        except Rejected as rejection:
            results.append({"error": {"code": 1, "message": str(rejection)}})
    if lie:
        results.append({})  # one result too many: a protocol violation
    return {"model": model, "results": results}


def main():
    options = {}
    for line in sys.stdin:
        message = json.loads(line)
        method, params, mid = message.get("method"), message.get("params") or {}, message.get("id")
        if method == "initialize":
            options = params.get("options") or {}
            send({"id": mid, "result": {"protocol": 1, "name": "soakapp", "version": "1", "effects": [],
                                        "update": True, "batch": True}})
        elif method == "init":
            model = params.get("model")
            send({"id": mid, "result": {"model": model if isinstance(model, dict) and "n" in model
                                        else empty_model()}})
        elif method == "updateBatch":
            send({"id": mid, "result": update_batch(options, params["model"], params["events"])})
        elif method == "update":
            result = update_batch(options, params["model"], [params["event"]])
            only = result["results"][0]
            if "error" in only:
                send({"id": mid, "error": only["error"]})
            else:
                send({"id": mid, "result": dict(only, model=result["model"])})
        elif method == "shutdown":
            send({"id": mid, "result": {}})


if __name__ == "__main__":
    if not os.environ.get("MOBIUSD_PLUGIN"):
        sys.stderr.write("soakapp.py is a mobiusd plugin; run it from mobiusd\n")
        sys.exit(2)
    main()
