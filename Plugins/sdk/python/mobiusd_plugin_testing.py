"""Drive a mobiusd plugin over real pipes as the daemon would, for plugin tests (stdlib only).

An update plugin or an effect handler, tested through its answers:

    counter = RunningPlugin(["./counter.py"])          # started and initialized
    assert counter.update(1, {"type": "up"}) == mp.Next(2)
    assert counter.update(0, {"type": "jump"}) == Rejected("unknown event")
    assert greeter.effect({"type": "greet"}) == Handled([{"type": "greeted"}])
    counter.stop()

The protocol itself, message by message:

    with PluginProcess(["./my-plugin"]) as plugin:
        plugin.initialize(options={"x": 1})
        rid = plugin.effect({"type": "greet"})
        events, reply = plugin.reply(rid)

Timeouts here only keep a broken plugin from hanging a test; no test result depends on timing.
"""

import json
import os
import queue
import signal
import subprocess
import threading

import mobiusd_plugin as mp

WAIT = 20.0  # seconds: a hang guard, not an assertion


class PluginProcess:
    """A plugin started with the environment mobiusd gives plugins (docs/protocol.md 2.1), plus the test's
    PYTHONPATH, so a Python plugin imports the SDK the test imports."""

    def __init__(self, argv, env=None, name="test-plugin", app="test-app", cwd=None, plugin_env=True):
        kept = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "PYTHONPATH")
        environment = {key: os.environ[key] for key in kept if key in os.environ}
        if plugin_env:
            environment.update({"MOBIUSD_PLUGIN": "1", "MOBIUSD_PROTOCOL": "1",
                                "MOBIUSD_PLUGIN_NAME": name, "MOBIUSD_APP": app})
        environment.update(env or {})
        self.name, self.app = name, app
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=environment, cwd=cwd, start_new_session=True)
        self.messages = queue.Queue()
        self.stderr_lines = []
        self._next_id = 1
        self._stdout_thread = threading.Thread(target=self._pump_stdout, daemon=True)
        self._stderr_thread = threading.Thread(target=self._pump_stderr, daemon=True)
        self._stdout_thread.start()
        self._stderr_thread.start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()

    def _pump_stdout(self):
        for line in self.process.stdout:
            try:
                self.messages.put(json.loads(line))
            except ValueError:
                self.messages.put({"__not_json__": line})
        self.messages.put(None)

    def _pump_stderr(self):
        for line in self.process.stderr:
            self.stderr_lines.append(line.decode("utf-8", "replace").rstrip("\n"))

    # Sending ------------------------------------------------------------------------------------------------

    def send_raw(self, data):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message):
        self.send_raw(json.dumps(message, separators=(",", ":")).encode() + b"\n")  # compact, as mobiusd writes

    def request(self, method, params=None):
        rid = self._next_id
        self._next_id += 1
        message = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return rid

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def effect(self, effect):
        return self.request("effect", {"effect": effect})

    # Reading ------------------------------------------------------------------------------------------------

    def read(self, timeout=WAIT):
        """The next message; None at EOF. Raises AssertionError when nothing comes within the hang guard."""
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("plugin sent nothing for %.0f s; stderr: %s" % (timeout, self.stderr_lines[-10:]))

    def reply(self, rid):
        """Reads until the reply to ``rid``: (messages before it, the reply)."""
        before = []
        while True:
            message = self.read()
            if message is None:
                raise AssertionError("plugin ended before replying to %r; stderr: %s" % (rid, self.stderr_lines[-10:]))
            if message.get("id") == rid and "method" not in message:
                return before, message
            before.append(message)

    def call(self, method, params=None):
        """Sends a request and returns its reply, failing on messages in between."""
        before, reply = self.reply(self.request(method, params))
        assert not before, "unexpected messages before the reply: %r" % before
        return reply

    def initialize(self, options=None, protocol=1):
        """The handshake: initialize, then initialized. Returns the initialize result."""
        reply = self.call("initialize", {"protocol": protocol, "host": {"name": "mobiusd", "version": "test"},
                                         "app": self.app, "plugin": self.name, "options": options or {}})
        assert "result" in reply, "initialize failed: %r" % reply
        self.notify("initialized")
        return reply["result"]

    def close(self):
        """shutdown, close stdin, wait: returns (shutdown reply, other messages, exit status)."""
        rest, reply = self.reply(self.request("shutdown"))
        self.process.stdin.close()
        while True:
            message = self.read()
            if message is None:
                break
            rest.append(message)
        status = self.process.wait(timeout=WAIT)
        # stderr ends with the process: once its reader is done, stderr_lines holds every line.
        self._stderr_thread.join(WAIT)
        return reply, rest, status

    def kill(self):
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.wait()
        # The stderr reader ends at EOF on its own; closing stderr under it would fail its read mid-line.
        self._stderr_thread.join(WAIT)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass


class _Answer:
    """An answer that compares by value and prints as it is written in a test."""

    def __eq__(self, other):
        return type(self) is type(other) and vars(self) == vars(other)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join(self._arguments()))


class Rejected(_Answer):
    """``update`` refused the event (the daemon answers its sender ``InvalidEvent``): a ``PluginError``'s message
    and code."""

    def __init__(self, message, code=mp.DEFAULT_ERROR_CODE):
        self.message, self.code = message, code

    def _arguments(self):
        return [repr(self.message), "code=%r" % (self.code,)]


class Failed(Rejected):
    """The effect failed: the handler raised (a ``PluginError``'s message and code), or no handler claims it."""


class Handled(_Answer):
    """The effect succeeded: every event it produced, in the order the daemon dispatches them (those sent with
    ``request.send`` first, then the handler's returned events)."""

    def __init__(self, events=()):
        self.events = list(events)

    def _arguments(self):
        return [repr(self.events)] if self.events else []


class RunningPlugin:
    """A plugin started and initialized as the daemon does it, answering ``init``, ``update`` and ``effect`` with
    values: ``mp.Next``, ``Rejected``, ``Handled`` and ``Failed``. Events the plugin emits on its own collect in
    ``events``. ``stop()`` shuts it down and fails when it does not exit 0."""

    def __init__(self, argv, options=None, env=None, name="test-plugin", app="test-app", cwd=None):
        self.process = PluginProcess(argv, env=env, name=name, app=app, cwd=cwd)
        self.events = []
        try:
            self.process.initialize(options=options)
        except BaseException:
            self.process.kill()
            raise

    def init(self, model):
        return self._next(self._call("init", {"model": model}))

    def update(self, model, event):
        return self._next(self._call("update", {"model": model, "event": event}))

    def effect(self, effect):
        before, reply = self.process.reply(self.process.effect(effect))
        tied = [message["params"]["event"] for message in self._sort(before) if "id" in message["params"]]
        if "error" in reply:
            return Failed(reply["error"]["message"], reply["error"]["code"])
        return Handled(tied + reply["result"].get("events", []))

    def stop(self):
        if self.process.process.poll() is not None:
            self.process.kill()
            return
        try:
            _, rest, status = self.process.close()
            self._sort(rest)
            assert status == 0, "plugin exited with status %r; stderr: %s" % (status, self.process.stderr_lines[-10:])
        finally:
            self.process.kill()

    @property
    def stderr_lines(self):
        return self.process.stderr_lines

    def _call(self, method, params):
        before, reply = self.process.reply(self.process.request(method, params))
        self._sort(before)
        return reply

    def _sort(self, messages):
        """Keeps the plugin's own events (``event`` without an ``id``) in ``events``; returns the other
        notifications (events tied to an effect, ``progress``)."""
        others = []
        for message in messages:
            params = message.get("params")
            if message.get("method") == "event" and isinstance(params, dict) and "id" not in params:
                self.events.append(params.get("event"))
            elif message.get("method") == "event":
                others.append(message)
        return others

    @staticmethod
    def _next(reply):
        if "error" in reply:
            return Rejected(reply["error"]["message"], reply["error"]["code"])
        result = reply["result"]
        effects = result.get("effects", [])
        return mp.Next(result["model"], effects) if "model" in result else mp.Next(effects=effects)
