"""Write mobiusd plugins in Python: one stdlib-only file (docs/protocol.md section 2).

    import mobiusd_plugin as mp

    plugin = mp.Plugin("greeter", "1.0")

    @plugin.handler("greet")
    async def greet(request):
        return [{"type": "greeted", "who": request.effect.get("who", "world")}]

    plugin.run()

Concurrency: the protocol runs on one asyncio event loop. ``async def`` handlers run as tasks on it and the host's
``cancel`` cancels the task (``asyncio.CancelledError`` at its next ``await``). Plain ``def`` handlers run on a pool
of threads (64, the daemon's default concurrency); ``cancel`` sets ``request.cancelled`` and drops what they send
afterwards. ``init``/``update`` run on the loop, one at a time, in the order the host sends them; ``updateBatch`` is
answered by calling ``update`` once per event. Every method that sends (``emit``, ``request.send``, ``progress``) is
safe from any thread; it blocks while the host is not reading, which is the backpressure a flooding source should
feel.
"""

import asyncio
import concurrent.futures
import json
import os
import sys
import threading
import traceback

__all__ = [
    "PROTOCOL", "Plugin", "PluginError", "Next", "EffectRequest", "effect_key",
    "log", "debug", "info", "notice", "warning", "error",
]

PROTOCOL = 1
DEFAULT_MAX_LINE_BYTES = 16 << 20
DEFAULT_ERROR_CODE = -32000
MAX_EARLY_EVENTS = 1024
MAX_LOG_LINE_BYTES = 4096

_PARSE_ERROR = -32700
_INVALID_REQUEST = -32600
_METHOD_NOT_FOUND = -32601
_INVALID_PARAMS = -32602
_NOT_INITIALIZED = -32002

# ---------------------------------------------------------------------------------------------------------------
# Logging: stderr lines with sd-daemon priorities, which mobiusd copies into its log tagged with the plugin's name.

EMERGENCY, ALERT, CRITICAL, ERROR, WARNING, NOTICE, INFO, DEBUG = range(8)
_log_lock = threading.Lock()


def log(priority, message):
    """Writes ``message`` to stderr at ``priority`` (0-7): one ``<N>`` line per line, each cut at 4096 bytes."""
    priority = min(max(int(priority), 0), 7)
    out = bytearray()
    for line in str(message).split("\n"):
        data = line.rstrip("\r").encode("utf-8", "replace")
        if len(data) > MAX_LOG_LINE_BYTES:
            cut = data[:MAX_LOG_LINE_BYTES].decode("utf-8", "ignore").encode("utf-8")
            data = cut + ("… [%d more bytes cut]" % (len(data) - len(cut))).encode("utf-8")
        out += b"<%d>" % priority + data + b"\n"
    with _log_lock:
        try:
            _write_all(2, bytes(out))
        except OSError:
            pass


def debug(message): log(DEBUG, message)
def info(message): log(INFO, message)
def notice(message): log(NOTICE, message)
def warning(message): log(WARNING, message)
def error(message): log(ERROR, message)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]

# ---------------------------------------------------------------------------------------------------------------
# Values authors use.


class PluginError(Exception):
    """Raise to fail an effect, or to reject an event in ``update``, with a message and JSON-RPC code."""

    def __init__(self, message, code=DEFAULT_ERROR_CODE):
        super().__init__(message)
        self.message = str(message)
        self.code = int(code)


_NO_CHANGE = object()


class Next:
    """What ``init``/``update`` return (Mobius First/Next): ``Next(model, effects)``; ``Next(effects=[...])``
    leaves the model alone. Returning ``None`` means no change and no effects."""

    __slots__ = ("model", "effects")

    def __init__(self, model=_NO_CHANGE, effects=()):
        self.model = model
        self.effects = list(effects)

    def __eq__(self, other):
        if not isinstance(other, Next):
            return NotImplemented
        return (self.model is _NO_CHANGE) == (other.model is _NO_CHANGE) and self.to_json() == other.to_json()

    def __repr__(self):
        parts = [] if self.model is _NO_CHANGE else [repr(self.model)]
        if self.effects:
            parts.append(repr(self.effects) if parts else "effects=%r" % (self.effects,))
        return "Next(%s)" % ", ".join(parts)

    def to_json(self):
        result = {}
        if self.model is not _NO_CHANGE:
            result["model"] = self.model
        if self.effects:
            result["effects"] = self.effects
        return result


def effect_key(effect):
    """The routing key of an effect (docs/protocol.md 2.4), or None when it is unroutable."""
    if isinstance(effect, str):
        return effect
    if isinstance(effect, dict):
        kind = effect.get("type")
        if isinstance(kind, str):
            return kind
        if len(effect) == 1:
            return next(iter(effect))
    return None


class EffectRequest:
    """One effect the host asked for, as a handler sees it."""

    def __init__(self, session, rid, effect, key, config):
        self._session = session
        self.id = rid
        self.effect = effect
        self.key = key
        self.config = config
        self.options = config.get("options") or {}
        self._state = "running"  # then "cancelled" or "ended"

    @property
    def cancelled(self):
        """Whether the host cancelled this effect."""
        return self._state == "cancelled"

    def send(self, event):
        """Sends an event tied to this effect now. Dropped once the effect has ended or was cancelled."""
        if self._state == "running":
            self._session.send_event({"id": self.id, "event": event})

    def progress(self):
        """Restarts the effect's idle timeout in the host."""
        if self._state == "running":
            self._session.write({"jsonrpc": "2.0", "method": "progress", "params": {"id": self.id}})

    def emit(self, event):
        """Sends an event of the plugin's own (no effect id)."""
        self._session.emit(event)

# ---------------------------------------------------------------------------------------------------------------
# The plugin.


def _encode(message):
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def _reject_constant(name):
    raise ValueError("%s is not JSON" % name)


def _exit(status):
    """Ends the process now with ``status`` (a ``sys.exit`` argument), from any thread, after stderr is written."""
    if status is None:
        code = 0
    elif isinstance(status, int):
        code = status & 0xFF
    else:
        sys.stderr.write("%s\n" % (status,))
        code = 1
    sys.stderr.flush()
    os._exit(code)


def _crash(exc):
    """A bug in the plugin (an exception that is not ``PluginError`` where no effect can carry it): its traceback
    goes to the log at ``<3>`` and the plugin exits 1, as an uncaught exception ends a Python program."""
    error(_traceback(exc))
    _exit(1)


def _traceback(exc):
    return "".join(traceback.format_exception(exc)).rstrip("\n")


def _log_failure(what, exc):
    """Logs at ``<3>`` that ``what`` failed: a ``PluginError``'s message, any other exception's traceback."""
    if isinstance(exc, PluginError):
        error("%s: %s" % (what, exc.message))
    else:
        error("%s:\n%s" % (what, _traceback(exc)))


def _describe(exc):
    if isinstance(exc, PluginError):
        return exc.code, exc.message
    if isinstance(exc, asyncio.CancelledError):
        return DEFAULT_ERROR_CODE, "cancelled"
    text = str(exc)
    return DEFAULT_ERROR_CODE, "%s: %s" % (type(exc).__name__, text) if text else type(exc).__name__


class Plugin:
    """A mobiusd plugin: effect handlers by key, optionally the app's update function, and hooks."""

    def __init__(self, name, version="0", max_line_bytes=DEFAULT_MAX_LINE_BYTES):
        self.name = name
        self.version = version
        self.max_line_bytes = max_line_bytes
        self._handlers = {}
        self._init = None
        self._update = None
        self._on_initialize = None
        self._on_start = None
        self._on_shutdown = None
        # Runtime state (run()).
        self.config = None
        self._out = 1
        self._write_lock = threading.Lock()
        self._write_failed = False
        self._state_lock = threading.Lock()
        self._started = False
        self._shutting_down = False
        self._early = []
        self._dropped_early = 0
        self._in_flight = {}
        self._loop = None
        self._pool = None

    # Registration ------------------------------------------------------------------------------------------

    def handle(self, key, function):
        """Registers ``function(request)`` (``async def`` or plain) for effects with routing key ``key``; it
        returns the events for the result (or None). Raising fails the effect."""
        if key in self._handlers:
            raise ValueError("a handler for %r is already registered" % key)
        self._handlers[key] = function

    def handler(self, key):
        """Decorator form of ``handle``."""
        def register(function):
            self.handle(key, function)
            return function
        return register

    def update(self, function):
        """Decorator: ``function(model, event)`` is the app's update; returns ``Next``/None, raises to reject."""
        self._update = function
        return function

    def init(self, function):
        """Decorator: ``function(model)`` is the app's init (default: no change, no effects)."""
        self._init = function
        return function

    def on_initialize(self, function):
        """Decorator: ``function(config)`` checks the host's config before ``initialize`` is answered; raising
        fails the start with its message."""
        self._on_initialize = function
        return function

    def on_start(self, function):
        """Decorator: ``function(plugin)`` runs once after ``initialized`` (``async def`` as a task, plain in a
        thread of its own), for events of the plugin's own."""
        self._on_start = function
        return function

    def on_shutdown(self, function):
        """Decorator: ``function()`` runs when the host asks the plugin to shut down, before it answers."""
        self._on_shutdown = function
        return function

    # Sending ------------------------------------------------------------------------------------------------

    def write(self, message):
        """Sends one JSON-RPC message; False (nothing sent) when its line is over the limit or the host is gone."""
        try:
            data = _encode(message)
        except (TypeError, ValueError) as exc:
            error("message not sent: %s" % exc)
            return False
        if len(data) > self.max_line_bytes:
            return False
        with self._write_lock:
            if self._write_failed:
                return False
            try:
                _write_all(self._out, data + b"\n")
            except OSError:
                self._write_failed = True
                return False
        return True

    def _reply(self, rid, result):
        if not self.write({"jsonrpc": "2.0", "id": rid, "result": result}) and not self._write_failed:
            self._reply_error(rid, DEFAULT_ERROR_CODE,
                              "the result is over the host's line limit of %d bytes (or not JSON)"
                              % self.max_line_bytes)

    def _reply_error(self, rid, code, message):
        self.write({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message[:4096]}})

    def send_event(self, params):
        if not self.write({"jsonrpc": "2.0", "method": "event", "params": params}) and not self._write_failed:
            error("event dropped: over the host's line limit of %d bytes, or not JSON" % self.max_line_bytes)

    def emit(self, event):
        """Sends an event of the plugin's own. Before ``initialized`` up to 1024 wait for it; more are dropped."""
        with self._state_lock:
            if not self._started:
                if len(self._early) < MAX_EARLY_EVENTS:
                    self._early.append(event)
                else:
                    self._dropped_early += 1
                return
        self.send_event({"event": event})

    # Running ------------------------------------------------------------------------------------------------

    def run(self):
        """Speaks the protocol on stdin/stdout until stdin ends, then exits 0; ``sys.exit(N)`` anywhere in the plugin
        (a handler, a hook, ``update``) exits N at once. Without MOBIUSD_PLUGIN it says that it is a mobiusd plugin
        and exits 2."""
        if not os.environ.get("MOBIUSD_PLUGIN"):
            sys.stderr.write(
                "%s is a mobiusd plugin: mobiusd starts it and speaks JSON-RPC with it on stdin and stdout "
                "(docs/protocol.md section 2). Configure it under \"plugins\" in a mobiusd config instead of running it "
                "by hand. (MOBIUSD_PLUGIN is not set.)\n" % self.name)
            sys.stderr.flush()
            os._exit(2)
        # Stray prints must not corrupt the protocol: the protocol gets a private copy of stdout, fd 1 goes to stderr.
        sys.stdout.flush()
        self._out = os.dup(1)
        os.set_inheritable(self._out, False)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=64, thread_name_prefix="mobiusd-handler")
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        reader = threading.Thread(target=self._read_stdin, name="mobiusd-stdin", daemon=True)
        self._loop.call_soon(reader.start)
        try:
            self._loop.run_forever()
        except SystemExit as exc:
            _exit(exc.code)
        except BaseException as exc:  # never wait for handler threads at exit
            _crash(exc)
        _exit(0)

    def _read_stdin(self):
        """Reader thread: lines to the loop, a chunk's worth per hand-off; a line over the limit is skipped."""
        buffer = bytearray()
        skipping = None
        while True:
            try:
                chunk = os.read(0, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                items = []
                if skipping is not None:
                    items.append(("long", skipping + len(buffer)))
                elif buffer.strip():
                    items.append(("long", len(buffer)) if len(buffer) > self.max_line_bytes else ("line", bytes(buffer)))
                items.append(("end", None))
                self._loop.call_soon_threadsafe(self._receive_all, items)
                return
            buffer += chunk
            items = []
            start = 0
            while True:
                newline = buffer.find(b"\n", start)
                if newline < 0:
                    break
                line = bytes(buffer[start:newline])
                start = newline + 1
                if skipping is not None:
                    items.append(("long", skipping + len(line)))
                    skipping = None
                    continue
                if line.endswith(b"\r"):
                    line = line[:-1]
                items.append(("long", len(line)) if len(line) > self.max_line_bytes else ("line", line))
            del buffer[:start]
            if len(buffer) > self.max_line_bytes + 1:
                skipping = (skipping or 0) + len(buffer)
                buffer.clear()
            if items:
                self._loop.call_soon_threadsafe(self._receive_all, items)

    def _receive_all(self, items):
        for kind, value in items:
            if kind == "line":
                self._receive(value)
            elif kind == "long":
                warning("host sent a line of %d bytes, over the limit of %d; skipped" % (value, self.max_line_bytes))
                self._reply_error(None, _INVALID_REQUEST, "Invalid Request: line of %d bytes exceeds the limit of %d"
                                  % (value, self.max_line_bytes))
            else:
                self._cancel_all()
                self._loop.stop()
                return

    def _receive(self, line):
        if not line.strip():
            return
        try:
            message = json.loads(line.decode("utf-8"), parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            warning("host sent a line that is not JSON (%s): %r" % (exc, line[:200]))
            self._reply_error(None, _PARSE_ERROR, "Parse error: %s" % exc)
            return
        if not isinstance(message, dict):
            warning("host sent JSON that is not a JSON-RPC object: %r" % line[:200])
            self._reply_error(None, _INVALID_REQUEST, "Invalid Request: not a JSON-RPC object")
            return
        rid = message.get("id")
        has_id = "id" in message
        if has_id and (isinstance(rid, bool) or not isinstance(rid, (int, float, str))):
            self._reply_error(None, _INVALID_REQUEST, "Invalid Request: bad id")
            return
        method = message.get("method")
        if message.get("jsonrpc") != "2.0" or not isinstance(method, str):
            if has_id and "method" not in message and ("result" in message or "error" in message):
                warning("host sent a response, but this plugin makes no requests: %r" % line[:200])
                return
            warning("host sent an invalid JSON-RPC message: %r" % line[:200])
            self._reply_error(rid, _INVALID_REQUEST, 'Invalid Request: needs "jsonrpc":"2.0" and a string "method"')
            return
        params = message.get("params")
        if has_id:
            self._request(rid, method, params)
        else:
            self._notification(method, params)

    def _request(self, rid, method, params):
        if method == "initialize":
            self._initialize(rid, params)
        elif method == "ping":
            self._reply(rid, {})
        elif method == "shutdown":
            with self._state_lock:
                self._shutting_down = True
            self._cancel_all()
            if self._on_shutdown is not None:
                try:
                    self._on_shutdown()
                except Exception as exc:  # an author's hook must not stop the answer
                    _log_failure("shutdown hook failed", exc)
            self._reply(rid, {})
        elif method in ("effect", "init", "update", "updateBatch"):
            if self.config is None:
                self._reply_error(rid, _NOT_INITIALIZED, "%s before initialize" % method)
            elif method == "effect":
                self._effect(rid, params)
            else:
                self._update_request(rid, method, params)
        else:
            self._reply_error(rid, _METHOD_NOT_FOUND, "Method not found: %s" % method)

    def _notification(self, method, params):
        if method == "initialized":
            self._started_by_host()
        elif method == "cancel":
            rid = params.get("id") if isinstance(params, dict) else None
            if rid is None:
                warning("host sent cancel without an id")
            else:
                self._cancel(rid)
        else:
            debug("host sent an unknown notification %r; ignored" % (method,))

    def _initialize(self, rid, params):
        if self.config is not None:
            self._reply_error(rid, _INVALID_REQUEST, "initialize was already received")
            return
        options = params.get("options", {}) if isinstance(params, dict) else None
        if options is None and isinstance(params, dict):
            options = {}
        if not isinstance(params, dict) or not isinstance(options, dict):
            self._reply_error(rid, _INVALID_PARAMS, "initialize params must be an object with object options")
            return
        config = dict(params)
        config["options"] = options
        if config.get("protocol") != PROTOCOL:
            warning("host speaks protocol %r; this plugin speaks protocol %d" % (config.get("protocol"), PROTOCOL))
        if self._on_initialize is not None:
            try:
                self._on_initialize(config)
            except Exception as exc:
                code, message = _describe(exc)
                _log_failure("start refused", exc)
                self._reply_error(rid, code, message)
                sys.stderr.flush()
                os._exit(1)
        self.config = config
        result = {"protocol": PROTOCOL, "name": self.name, "version": self.version,
                  "effects": list(self._handlers), "update": self._update is not None}
        if self._update is not None:
            result["batch"] = True
        self._reply(rid, result)

    def _started_by_host(self):
        with self._state_lock:
            if self._started or self.config is None:
                first = False
            else:
                first = self._started = True
            early, self._early = self._early, []
            dropped = self._dropped_early
        if not first:
            warning("host sent initialized before initialize, or twice; ignored")
            return
        if dropped:
            warning("%d events emitted before initialized were dropped" % dropped)
        for event in early:
            self.send_event({"event": event})
        if self._on_start is not None:
            if asyncio.iscoroutinefunction(self._on_start):
                self._loop.create_task(self._run_start_async())
            else:
                threading.Thread(target=self._run_start_thread, name="mobiusd-source", daemon=True).start()

    async def _run_start_async(self):
        try:
            await self._on_start(self)
        except Exception as exc:
            _log_failure("event source stopped", exc)

    def _run_start_thread(self):
        try:
            self._on_start(self)
        except SystemExit as exc:
            _exit(exc.code)
        except Exception as exc:
            _log_failure("event source stopped", exc)

    # Effects ------------------------------------------------------------------------------------------------

    def _effect(self, rid, params):
        if not isinstance(params, dict) or "effect" not in params:
            self._reply_error(rid, _INVALID_PARAMS, 'effect params need an "effect" member')
            return
        effect = params["effect"]
        key = effect_key(effect)
        handler = self._handlers.get(key) if key is not None else None
        if handler is None:
            what = "key %s" % json.dumps(key) if key is not None else "an unroutable effect"
            self._reply_error(rid, _INVALID_PARAMS, "no handler for %s" % what)
            return
        with self._state_lock:
            if self._shutting_down:
                refusal = "the plugin is shutting down"
            elif rid in self._in_flight:
                refusal = "an effect with id %s is already in flight" % json.dumps(rid)
            else:
                refusal = None
        if refusal:
            self._reply_error(rid, _INVALID_REQUEST, refusal)
            return
        request = EffectRequest(self, rid, effect, key, self.config)
        # Registered before it starts: a thread may finish the effect before run_in_executor returns.
        entry = [request, None]
        with self._state_lock:
            self._in_flight[rid] = entry
        if asyncio.iscoroutinefunction(handler):
            entry[1] = self._loop.create_task(self._run_async(handler, request))
        else:
            entry[1] = self._loop.run_in_executor(self._pool, self._run_sync, handler, request)

    async def _run_async(self, handler, request):
        try:
            outcome = (True, await handler(request))
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:  # CancelledError included: the effect ends either way
            outcome = (False, exc)
        self._finish(request, outcome)

    def _run_sync(self, handler, request):
        try:
            outcome = (True, handler(request))
        except SystemExit as exc:
            _exit(exc.code)
        except Exception as exc:
            outcome = (False, exc)
        self._finish(request, outcome)

    def _finish(self, request, outcome):
        with self._state_lock:
            entry = self._in_flight.get(request.id)
            if entry is not None and entry[0] is request:
                del self._in_flight[request.id]
            if request._state != "running":
                return
            request._state = "ended"
        ok, value = outcome
        if ok:
            events = list(value) if value else []
            self._reply(request.id, {"events": events} if events else {})
        else:
            if not isinstance(value, (PluginError, asyncio.CancelledError)):
                _log_failure("effect %s failed" % json.dumps(request.key), value)
            code, message = _describe(value)
            self._reply_error(request.id, code, message)

    def _cancel(self, rid):
        with self._state_lock:
            entry = self._in_flight.pop(rid, None)
            if entry is None or entry[0]._state != "running":
                return
            entry[0]._state = "cancelled"
        if entry[1] is not None:
            entry[1].cancel()

    def _cancel_all(self):
        for rid in list(self._in_flight):
            self._cancel(rid)

    # Update -------------------------------------------------------------------------------------------------

    def _update_request(self, rid, method, params):
        if self._update is None:
            self._reply_error(rid, _METHOD_NOT_FOUND, "Method not found: %s (not an update plugin)" % method)
            return
        if not isinstance(params, dict):
            self._reply_error(rid, _INVALID_PARAMS, "%s params must be an object" % method)
            return
        model = params.get("model")
        if method == "init":
            self._answer(rid, lambda: self._init(model) if self._init is not None else None)
        elif method == "update":
            if "event" not in params:
                self._reply_error(rid, _INVALID_PARAMS, 'update params need an "event" member')
                return
            self._answer(rid, lambda: self._update(model, params["event"]))
        else:
            events = params.get("events")
            if not isinstance(events, list):
                self._reply_error(rid, _INVALID_PARAMS, 'updateBatch params need an "events" array')
                return
            self._reply(rid, self.batch(model, events))

    def _answer(self, rid, body):
        try:
            result = _as_next(body())
        except PluginError as exc:
            self._reply_error(rid, exc.code, exc.message)
            return
        except Exception as exc:
            _crash(exc)
        self._reply(rid, result.to_json())

    def batch(self, model, events):
        """``updateBatch`` on top of ``update``: each event sees the model the previous applied event left; a
        rejected one (``PluginError``) leaves it as it was; ``model`` is in the result only when some event changed
        it. Any other exception is a crash, as in ``update``."""
        current, changed, results = model, False, []
        for event in events:
            try:
                step = _as_next(self._update(current, event))
            except PluginError as exc:
                results.append({"error": {"code": exc.code, "message": exc.message}})
                continue
            except Exception as exc:
                _crash(exc)
            if step.model is not _NO_CHANGE:
                current, changed = step.model, True
            results.append({"effects": step.effects} if step.effects else {})
        result = {"model": current} if changed else {}
        result["results"] = results
        return result


def _as_next(value):
    if value is None:
        return Next()
    if isinstance(value, Next):
        return value
    raise TypeError("init/update must return Next(...) or None, not %s" % type(value).__name__)
