#!/usr/bin/env python3
"""A plugin built on mobiusd_plugin for the SDK's tests: one handler per feature under test."""
import asyncio
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mobiusd_plugin as mp  # noqa: E402

plugin = mp.Plugin("fixture", "1.2.3", max_line_bytes=int(os.environ.get("FIXTURE_MAX_LINE", mp.DEFAULT_MAX_LINE_BYTES)))
cancelled = {"async": 0, "sync": 0}


@plugin.on_initialize
def check(config):
    if config["options"].get("refuse"):
        raise mp.PluginError("refused: options say so")


@plugin.on_start
async def started(p):
    p.emit({"type": "started", "app": p.config["app"], "plugin": p.config["plugin"]})


@plugin.handler("echo")
async def echo(request):
    return [{"type": "echoed", "effect": request.effect}]


@plugin.handler("tied")
async def tied(request):
    for n in range(request.effect.get("count", 1)):
        request.send({"type": "tick", "n": n})
    return [{"type": "done"}]


@plugin.handler("fail")
async def fail(request):
    raise mp.PluginError("failed on purpose", code=-32001)


@plugin.handler("crash")
def crash(request):
    return 1 / 0


@plugin.handler("exit")
def exit_thread(request):
    sys.exit(request.effect.get("status", 0))


@plugin.handler("exitAsync")
async def exit_async(request):
    sys.exit(request.effect.get("status", 0))


@plugin.handler("slow")
async def slow(request):
    request.progress()
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        request.send({"type": "tooLate"})
        cancelled["async"] += 1
        return [{"type": "tooLateResult"}]


@plugin.handler("slowThread")
def slow_thread(request):
    request.progress()
    while not request.cancelled:
        time.sleep(0.01)
    request.send({"type": "tooLate"})
    cancelled["sync"] += 1
    return [{"type": "tooLateResult"}]


@plugin.handler("cancelled")
async def count_cancelled(request):
    return [cancelled]


@plugin.handler("emit")
def emit(request):
    for n in range(request.effect.get("count", 1)):
        request.emit({"type": "unsolicited", "n": n, "thread": threading.current_thread().name != "MainThread"})


@plugin.handler("print")
def stray_print(request):
    print("a stray line on stdout", flush=True)
    return [{"type": "printed"}]


@plugin.handler("big")
async def big(request):
    return ["x" * request.effect.get("size", 0)]


@plugin.handler("log")
async def do_log(request):
    mp.log(request.effect.get("priority", 6), request.effect.get("message", ""))


@plugin.handler("options")
async def options(request):
    return [request.options]


@plugin.handler("nan")
async def nan(request):
    return [float("nan")]


@plugin.init
def init(model):
    return mp.Next(0, [{"type": "echo"}]) if model is None else None


@plugin.update
def update(model, event):
    count = model or 0
    kind = event.get("type") if isinstance(event, dict) else None
    if kind == "inc":
        return mp.Next(count + 1, [{"type": "echo", "count": count + 1}])
    if kind == "reject":
        raise mp.PluginError("reject refused at %d" % count)
    if kind == "exit":
        sys.exit(event.get("status", 0))
    if kind == "boom":
        return count / 0
    return None


plugin.run()
