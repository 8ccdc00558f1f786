#!/usr/bin/env python3
"""The plugin benchmark's Python plugin, on the Python SDK: effect "work" answers {"type":"done"}; as the update,
{"type":"add"} adds 1 to the model."""
import mobiusd_plugin as mp

plugin = mp.Plugin("bench-py", "1")


@plugin.handler("work")
async def work(request):
    return [{"type": "done"}]


@plugin.update
def update(model, event):
    if event.get("type") == "add":
        return mp.Next((model or 0) + 1)
    return None


plugin.run()
