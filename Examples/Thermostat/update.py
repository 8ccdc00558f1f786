#!/usr/bin/env python3
"""The thermostat app's update function, as a mobiusd update plugin (see README.md)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "Plugins", "sdk", "python"))
import mobiusd_plugin as mp  # noqa: E402

plugin = mp.Plugin("thermostat", "1.0")


@plugin.update
def update(model, event):
    kind = event.get("type") if isinstance(event, dict) else None
    value = event.get("celsius") if kind in ("reading", "setTarget") else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise mp.PluginError('events are {"type":"reading"|"setTarget","celsius":NUMBER}')
    model = dict(model, **{"celsius" if kind == "reading" else "target": value})
    heating = model["celsius"] is not None and model["celsius"] < model["target"]
    if heating == model["heating"]:
        return mp.Next(model)
    model["heating"] = heating
    state = "on" if heating else "off"
    return mp.Next(model, [{"type": "file.write", "path": "thermostat-heating", "value": state},
                           {"type": "syslog", "priority": "notice", "message": "heating " + state}])


if __name__ == "__main__":
    plugin.run()
