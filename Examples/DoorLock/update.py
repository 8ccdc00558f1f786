#!/usr/bin/env python3
"""The door lock's update function, as a mobiusd update plugin (see README.md)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "Plugins", "sdk", "python"))
import mobiusd_plugin as mp  # noqa: E402

CODE = "1234"
ALARM_AFTER = 3

plugin = mp.Plugin("door-lock", "1.0")


@plugin.update
def update(model, event):
    kind = event.get("type") if isinstance(event, dict) else None
    if kind == "lock":
        if model["locked"]:
            return mp.Next(model)
        return mp.Next(dict(model, locked=True), [{"type": "bolt", "open": False}])
    if kind != "unlock" or not isinstance(event.get("code"), str):
        raise mp.PluginError('events are {"type":"unlock","code":STRING} and {"type":"lock"}')
    if event["code"] == CODE:
        if not model["locked"]:
            return mp.Next(model)
        return mp.Next(dict(model, locked=False, failedAttempts=0), [{"type": "bolt", "open": True}])
    failed = model["failedAttempts"] + 1
    alarm = [{"type": "alarm", "failedAttempts": failed}] if failed == ALARM_AFTER else []
    return mp.Next(dict(model, failedAttempts=failed), alarm)


if __name__ == "__main__":
    plugin.run()
