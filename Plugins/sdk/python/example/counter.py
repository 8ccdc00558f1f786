#!/usr/bin/env python3
"""The counter as an update plugin: "up" and "down" change the count; "down" at zero beeps instead."""
import mobiusd_plugin as mp

plugin = mp.Plugin("counter", "1.0")


@plugin.init
def init(model):
    return mp.Next(0) if model is None else None


@plugin.update
def update(model, event):
    kind = event.get("type") if isinstance(event, dict) else None
    if kind == "up":
        return mp.Next(model + 1)
    if kind == "down":
        return mp.Next(model - 1) if model > 0 else mp.Next(effects=[{"type": "beep"}])
    raise mp.PluginError("unknown event %r" % (event,))


plugin.run()
