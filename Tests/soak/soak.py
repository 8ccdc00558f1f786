#!/usr/bin/python3
"""The soak (docs/reliability.md, "Soak"): the real mobiusd under load and faults for SOAK_SECONDS, then checks.

Usage: soak.py --bin DIR [--seconds N] [--seed S] [--plot FILE] [--keep] [--skip-without-namespaces]
  DIR holds the built mobiusd. N defaults to $SOAK_SECONDS, else 600. S defaults to a random seed, printed at the
  start: the same seed makes the same choices (the timing of the machine still differs). FILE gets the plot (PNG).

It runs itself again inside `unshare` (a mount and a PID namespace of its own): the small state file system it
mounts is private to the run and goes away with it, and every process it starts (the daemon, its plugins, the bus,
the peers) is killed by the kernel when the run ends, however it ends. Everything it writes is in one temporary
directory, removed at the end (kept with --keep). Needs root, or unprivileged user namespaces (then the small file
system is a tmpfs instead of a loop-mounted ext4 image); --skip-without-namespaces makes a machine with neither a
skip (exit status 0) rather than a failure. Exit status 0 when every check passed, 1 otherwise.
"""
import argparse
import collections
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PYTHON = "/usr/bin/python3"
DBUS_PEER = os.path.join(ROOT, "Tests", "Fixtures", "DBusPeer", "dbus-peer.py")
sys.path.insert(0, HERE)
import soakapp  # noqa: E402  (the app's own update, for the recomputation)

EFFECT_PLUGINS = ["alpha", "beta", "gamma"]
# Effect modes a client picks for an event on its own (they cost the plugin nothing but a moment)...
LIGHT_MODES = [("ok", 80), ("events", 8), ("slow", 6), ("error", 6)]
# ...and faults that end or wedge a plugin, which the fault schedule hands out (see Faults.plugin_fault).
HEAVY_MODES = ["crash", "hang", "flood", "lie", "close"]
UPDATE_FAULTS = ["crash", "lie", "close", "slow", "flood", "poison"]
FAILURE_CODES = {"Timeout", "PluginExited", "PluginError", "ProtocolViolation", "Unavailable", "Unroutable"}


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def digest(value):
    return hashlib.blake2b(canonical(value).encode(), digest_size=12).digest()


def percentile(values, fraction):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


# ---------------------------------------------------------------------------------------------------------------
# Outside the namespaces: the temporary directory, unshare, and the cleanup that must happen whatever the run did.

def outer(args):
    prefix = ["unshare", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc", "--propagation", "private"]
    if os.getuid() != 0:
        prefix[1:1] = ["--user", "--map-root-user"]
    try:
        probe = subprocess.run(prefix + ["true"], capture_output=True, text=True)
        problem = probe.stderr.strip() if probe.returncode != 0 else None
    except OSError as error:
        problem = str(error)
    if problem is not None:
        print("soak: cannot make namespaces (%s): %s" % (" ".join(prefix), problem), file=sys.stderr)
        if args.skip_without_namespaces:
            print("soak: skipped")
            return 0
        return 1
    scratch = tempfile.mkdtemp(prefix="mobiusd-soak.")
    os.chmod(scratch, 0o755)
    try:
        return subprocess.call(prefix + [PYTHON, os.path.abspath(__file__), "--inner", scratch] + sys.argv[1:])
    except KeyboardInterrupt:
        return 130
    finally:
        if args.keep or os.environ.get("SOAK_KEEP"):
            print("soak: kept %s" % scratch)
        else:
            # A mount left behind (an inner run killed before it unmounted) went with its namespace.
            shutil.rmtree(scratch, ignore_errors=True)


# ---------------------------------------------------------------------------------------------------------------
# Bookkeeping shared by the threads.

class Ledger:
    """Everything the clients and the fault schedule saw, and every failed check."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = collections.Counter()
        self.acked = {}            # event id -> (seq, time of the ack)
        self.acked_seq = {}        # seq -> event id
        self.unanswered = {}       # event id -> time sent: no reply before the connection broke
        self.must_apply = {}       # event id -> time: a `ping` after it was answered and it got no error (reply errors)
        self.rejected = collections.Counter()
        self.expect_reject = {}    # event id -> the error code it must get
        self.latencies = []        # (time of the ack, seconds) of one-at-a-time events
        self.failures = []
        self.kills = []            # times of SIGKILLs
        self.kill_windows = []     # (the kill, the restarted daemon's readiness): acks read in between are the old's
        self.disk_full = []        # (start, end)
        self.events_timeline = []  # (time, acks so far)
        self.notes = []

    def fail(self, message):
        with self.lock:
            if len(self.failures) < 200:
                self.failures.append("%.1fs %s" % (time.time() - START, message))
            self.counts["failed checks"] += 1
        print("soak: FAIL: " + message, file=sys.stderr, flush=True)

    def count(self, key, n=1):
        with self.lock:
            self.counts[key] += n

    def ack(self, event_id, seq, now, latency=None):
        problems = []
        with self.lock:
            if event_id in self.acked:
                problems.append("event %s acked twice (seq %s and %s)" % (event_id, self.acked[event_id][0], seq))
            if seq in self.acked_seq:
                problems.append("seq %d acked for %s and %s" % (seq, self.acked_seq[seq], event_id))
            self.acked[event_id] = (seq, now)
            self.acked_seq[seq] = event_id
            self.counts["events acked"] += 1
            if latency is not None:
                self.latencies.append((now, latency))
        for problem in problems:
            self.fail(problem)


START = time.time()


def log(message):
    print("soak: %6.1fs %s" % (time.time() - START, message), flush=True)


# ---------------------------------------------------------------------------------------------------------------
# A client connection: JSON lines over the control socket.

class Connection:
    def __init__(self, path, timeout=15.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(path)
        except OSError:
            self.sock.close()
            raise
        self.buffer = bytearray()
        self.lines_sent = 0

    def send(self, lines):
        self.lines_sent += len(lines)
        self.sock.sendall(("".join(line + "\n" for line in lines)).encode())

    def read(self):
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                return json.loads(line)
            data = self.sock.recv(262144)
            if not data:
                raise EOFError("the daemon closed the connection")
            self.buffer += data

    def request(self, line):
        self.send([line])
        return self.read()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()


# ---------------------------------------------------------------------------------------------------------------
# The archive: every applied event, followed with `log` from seq 1 across restarts, and the model recomputed from it.

class Archive:
    def __init__(self, soak):
        self.soak = soak
        self.lock = threading.Condition()
        self.events = []                 # canonical JSON of the event at seq i+1
        self.ids = []                    # its "id" (work events), else None
        self.id_seqs = {}                # work id -> seq
        self.model = soakapp.empty_model()
        self.model_digests = [digest(self.model)]  # index: seq
        self.pending = []                # (seq, digest, what): observations to check once the archive has seq
        self.epoch = None
        self.checked = 0

    @property
    def head(self):
        return len(self.events)

    def observe_model(self, seq, model, what):
        with self.lock:
            self.pending.append((seq, digest(model), what))
            self._check_pending()

    def observe_event(self, seq, event, what):
        with self.lock:
            self.pending.append((seq, ("event", canonical(event)), what))
            self._check_pending()

    def _check_pending(self):
        keep = []
        for seq, expected, what in self.pending:
            if seq > self.head:
                keep.append((seq, expected, what))
                continue
            self.checked += 1
            if isinstance(expected, tuple):
                if self.events[seq - 1] != expected[1]:
                    self.soak.ledger.fail("%s: seq %d is %s, log says %s" % (what, seq, expected[1][:200],
                                                                             self.events[seq - 1][:200]))
            elif self.model_digests[seq] != expected:
                self.soak.ledger.fail("%s: the model at seq %d differs from the recomputation from log" % (what, seq))
        self.pending = keep

    def add(self, seq, event):
        with self.lock:
            if seq != self.head + 1:
                self.soak.ledger.fail("log: seq %d follows seq %d (a gap or a repeat)" % (seq, self.head))
                return False
            self.events.append(canonical(event))
            event_id = event.get("id") if isinstance(event, dict) and event.get("type") == "work" else None
            self.ids.append(event_id)
            if event_id is not None:
                if event_id in self.id_seqs:
                    self.soak.ledger.fail("event %s applied twice (seq %d and %d)" % (event_id,
                                                                                   self.id_seqs[event_id], seq))
                self.id_seqs[event_id] = seq
            try:
                soakapp.apply(self.model, event)
            except soakapp.Rejected as rejection:
                self.soak.ledger.fail("log: seq %d holds an event the app rejects (%s)" % (seq, rejection))
            self.model_digests.append(digest(self.model))
            return True

    def wait_for(self, seq, timeout):
        deadline = time.time() + timeout
        with self.lock:
            while self.head < seq and time.time() < deadline:
                self.lock.wait(0.2)
            return self.head >= seq

    def follow(self):
        """The archivist thread: `log` from the archive's head, following, reconnecting after every restart."""
        while not self.soak.done.is_set():
            try:
                conn = self.soak.connect(timeout=30)
            except OSError:
                time.sleep(0.05)
                continue
            try:
                conn.send(['log {"since":%d,"follow":true}' % self.head])
                first = conn.read()
                if not first.get("ok"):
                    raise EOFError("log refused: %s" % first)
                if first.get("compacted"):
                    self.soak.ledger.fail("log: events after seq %d were compacted before the archive read them"
                                          % self.head)
                if self.epoch is None:
                    self.epoch = first.get("epoch")
                elif first.get("epoch") != self.epoch:
                    self.soak.ledger.fail("the epoch changed from %s to %s" % (self.epoch, first.get("epoch")))
                while not self.soak.done.is_set():
                    item = conn.read()
                    if "end" in item:
                        if item.get("compacted") or item.get("error"):
                            self.soak.ledger.fail("log ended: %s" % item)
                        break
                    with self.lock:
                        self.add(item["seq"], item["event"])
                        if len(self.pending):
                            self._check_pending()
                        self.lock.notify_all()
            except (OSError, EOFError, ValueError):
                pass
            finally:
                conn.close()


# ---------------------------------------------------------------------------------------------------------------
# The daemon: its config, start, readiness, SIGKILL and the resources it uses.

class Daemon:
    def __init__(self, soak):
        self.soak = soak
        self.process = None
        self.generation = 0
        self.faults = None
        self.starts = 0
        self.log_offset = 0
        self.killing = False

    def config(self, generation, broken=None):
        s = self.soak
        plugins = {
            "app": {"exec": [PYTHON, os.path.join(HERE, "soakapp.py")],
                    "options": {"markers": s.path("markers"), "slowSeconds": 0.5, "floodCount": 200},
                    "restart": {"initialDelay": 0.02, "maxDelay": 0.5, "burst": 1000, "interval": 60}},
        }
        for index, name in enumerate(EFFECT_PLUGINS):
            plugins[name] = {
                "exec": [PYTHON, os.path.join(HERE, "fxplugin.py")],
                "options": {"name": name, "record": s.path("ran-%s" % name), "slowSeconds": 0.3,
                            "floodCount": 300,
                            # A change of options restarts the plugin at a reload: gamma changes at every one.
                            "generation": generation if name == "gamma" else 0},
                "timeout": 2, "concurrency": 16, "maxQueued": 256, "onError": {"type": "effectFailed"},
                # beta may spend its budget and be `failed` until a `plugin {"restart":"beta"}`.
                "restart": {"initialDelay": 0.05, "maxDelay": 1, "burst": 4 if name == "beta" else 1000,
                            "interval": 30},
            }
        config = {
            "app": "soak",
            "model": soakapp.empty_model(),
            "update": {"plugin": "app"},
            "plugins": plugins,
            "dbus": [{"name": "soakbus", "bus": s.bus_address, "type": "dbus",
                      "match": {"interface": "org.mobiusd.Test"}, "event": {"generation": generation % 3}}],
            "socket": {"path": s.socket_path, "maxOutputBytes": 65536, "stallTimeout": 4 + generation % 2},
            "state": {"directory": s.state_dir, "snapshotEvents": s.snapshot_events, "segmentBytes": 4 << 20},
        }
        text = json.dumps(config, indent=1)
        if broken == "syntax":
            text = text[:-5] + ",}"
        elif broken == "unknown key":
            config["socket"]["maxLineByte"] = 1024
            text = json.dumps(config)
        elif broken == "range":
            config["plugins"]["alpha"]["timeout"] = -1
            text = json.dumps(config)
        elif broken == "missing plugin":
            config["plugins"]["beta"]["exec"] = [s.path("no-such-plugin")]
            text = json.dumps(config)
        return text

    def write_config(self, generation=None, broken=None):
        if generation is not None:
            self.generation = generation
        path = self.soak.config_path
        with open(path + ".tmp", "w") as f:
            f.write(self.config(self.generation, broken))
        os.rename(path + ".tmp", path)

    def start(self, faults=None):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.soak.scratch, "LANG": "C.UTF-8"}
        if faults:
            env["MOBIUSD_DEBUG_SYSCALL_FAULTS"] = faults
        self.faults = faults
        out = open(self.soak.path("daemon.log"), "ab")
        self.log_offset = out.tell()
        self.killing = False
        out.write(("---- soak: start %d%s\n" % (self.starts + 1, " with " + faults if faults else "")).encode())
        out.flush()
        self.process = subprocess.Popen([self.soak.mobiusd, "--config", self.soak.config_path],
                                        stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env)
        out.close()
        self.starts += 1

    def wait_ready(self, timeout=90):
        """Waits for `hello`; returns its reply, or None when the daemon exited or did not answer in time."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                return None
            try:
                conn = self.soak.connect(timeout=5)
                try:
                    reply = conn.request("hello")
                finally:
                    conn.close()
                if reply.get("ok"):
                    return reply
            except (OSError, EOFError, ValueError):
                pass
            time.sleep(0.05)
        return None

    def kill(self):
        self.killing = True
        self.check_crash()
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        if self.process:
            self.process.wait()

    def crash_report(self):
        """What this run of the daemon wrote after a trap (Swift's "Fatal error", its backtrace), or None."""
        try:
            with open(self.soak.path("daemon.log"), "rb") as f:
                f.seek(self.log_offset)
                text = f.read().decode(errors="replace")
        except OSError:
            return None
        start = min((i for i in (text.find("Fatal error"), text.find("*** Signal")) if i >= 0), default=-1)
        return text[start:] if start >= 0 else None

    def check_crash(self):
        """A daemon that trapped or exited by itself is a failure; wait for its backtrace before it goes."""
        if not self.process:
            return
        if self.crash_report() and self.process.poll() is None:
            try:
                self.process.wait(120)
            except subprocess.TimeoutExpired:
                pass
        status = self.process.poll()
        report = self.crash_report()
        if report or (status is not None and not self.killing):
            self.soak.ledger.fail("the daemon %s by itself:\n%s" % (
                "exited (status %s)" % status if status is not None else "trapped", (report or "")[:6000]))
            self.process.wait()
            self.log_offset = os.path.getsize(self.soak.path("daemon.log"))

    @property
    def pid(self):
        return self.process.pid if self.process and self.process.poll() is None else None


# ---------------------------------------------------------------------------------------------------------------
# The soak.

class Soak:
    def __init__(self, args):
        self.args = args
        self.scratch = args.inner
        self.seconds = args.seconds
        self.seed = args.seed
        self.random = random.Random(self.seed)
        self.ledger = Ledger()
        self.finished = threading.Event()   # the clients stop
        self.done = threading.Event()       # the archive's follower and the sampler stop
        self.calm = threading.Event()        # no faults: the first and the last window
        self.calm.set()
        self.window = min(60.0, max(5.0, self.seconds / 5))
        self.settle = min(5.0, self.window / 4)
        self.latency_samples = 2000   # acks in each window for the p99 comparison to count
        self.mobiusd = os.path.join(args.bin, "mobiusd")
        self.socket_path = self.path("run", "soak.sock")
        self.config_path = self.path("soak.json")
        self.fs = self.path("fs")
        self.state_dir = os.path.join(self.fs, "state")
        self.bus_socket = self.path("bus")
        self.bus_address = "unix:path=" + self.bus_socket
        self.snapshot_events = 20000 if self.seconds >= 120 else 2000
        self.archive = Archive(self)
        self.daemon = Daemon(self)
        self.bus = None
        self.fs_kind = None
        self.heavy_faults = collections.deque()
        self.samples = []                    # (time, rss, fds, threads, children)
        self.fault_counts = collections.Counter()
        self.stalled = collections.Counter()
        self.dbus_sent = 0
        self.threads = []
        self.known_children = set()
        self.daemon_lock = threading.RLock()   # the fault schedule and the sampler both start the daemon

    def path(self, *parts):
        return os.path.join(self.scratch, *parts)

    def connect(self, timeout=15.0):
        return Connection(self.socket_path, timeout)

    # -- the environment ------------------------------------------------------------------------------------------

    def mount_small_fs(self):
        """A 64 MiB ext4 image on a loop device when a free one exists (so no device node is created in the host's
        /dev), else a tmpfs of the same size. Private to this mount namespace; `-n` keeps /run/mount/utab as it is."""
        os.makedirs(self.fs)
        image = self.path("fs.img")
        free = subprocess.run(["losetup", "-f"], capture_output=True, text=True).stdout.strip()
        if free and os.path.exists(free):
            with open(image, "wb") as f:
                f.truncate(64 << 20)
            made = subprocess.run(["mkfs.ext4", "-q", "-F", "-m", "0", image], capture_output=True, text=True)
            mounted = made.returncode == 0 and subprocess.run(
                ["mount", "-n", "-o", "loop", image, self.fs], capture_output=True, text=True).returncode == 0
            if mounted:
                self.fs_kind = "ext4 on a loop device, 64 MiB"
                return
            os.unlink(image)
        subprocess.run(["mount", "-n", "-t", "tmpfs", "-o", "size=64m,mode=0700", "tmpfs", self.fs], check=True)
        self.fs_kind = "tmpfs, 64 MiB"

    def unmount_small_fs(self):
        if self.fs_kind:
            if subprocess.run(["umount", "-n", self.fs], capture_output=True).returncode != 0:
                subprocess.run(["umount", "-n", "-l", self.fs], capture_output=True)
            self.fs_kind = None

    def start_bus(self):
        self.bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--nopidfile",
                                     "--address=" + self.bus_address],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=open(self.path("bus.log"), "ab"))
        self.known_children.add(self.bus.pid)
        deadline = time.time() + 10
        while time.time() < deadline and not os.path.exists(self.bus_socket):
            time.sleep(0.02)

    def stop_bus(self):
        if self.bus and self.bus.poll() is None:
            self.bus.kill()
            self.bus.wait()
        try:
            os.unlink(self.bus_socket)
        except FileNotFoundError:
            pass

    def reap_orphans(self):
        """As PID 1 of the namespace this process inherits every orphan (a killed daemon's plugins): reap those that
        are not its own children, so they do not stay as zombies."""
        while True:
            try:
                info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            if info is None:
                return
            if info.si_pid in self.known_children or (self.daemon.process and info.si_pid == self.daemon.process.pid):
                # One of ours: its Popen reaps it. Poll them all, then look again.
                for process in [self.daemon.process, self.bus]:
                    if process:
                        process.poll()
                return
            try:
                os.waitpid(info.si_pid, os.WNOHANG)
            except ChildProcessError:
                pass

    # -- resources --------------------------------------------------------------------------------------------------

    @staticmethod
    def process_table():
        table = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % entry) as f:
                    stat = f.read()
                fields = stat[stat.rindex(")") + 2:].split()
                table[int(entry)] = (fields[0], int(fields[1]))  # state, ppid
            except (OSError, ValueError):
                continue
        return table

    def sample(self):
        pid = self.daemon.pid
        if pid is None:
            return
        try:
            with open("/proc/%d/status" % pid) as f:
                status = dict(line.split(":", 1) for line in f if ":" in line)
            rss = int(status["VmRSS"].split()[0]) * 1024
            threads = int(status["Threads"])
            fds = len(os.listdir("/proc/%d/fd" % pid))
        except (OSError, KeyError, ValueError):
            return
        table = self.process_table()
        children = 0
        frontier = {pid}
        while frontier:
            frontier = {p for p, (state, ppid) in table.items() if ppid in frontier and state != "Z"}
            children += len(frontier)
        self.samples.append((time.time(), rss, fds, threads, children))

    def sampler(self):
        while not self.done.is_set():
            with self.daemon_lock:
                if not self.daemon.killing and self.daemon.process.poll() is not None:
                    self.daemon.check_crash()
                    died = time.time()
                    with self.ledger.lock:
                        self.ledger.kills.append(died)
                    self.restart_daemon()
                    with self.ledger.lock:
                        self.ledger.kill_windows.append((died, time.time()))
            self.sample()
            self.reap_orphans()
            with self.ledger.lock:
                self.ledger.events_timeline.append((time.time(), self.ledger.counts["events acked"],
                                                    self.archive.head))
            time.sleep(1)

    # -- clients ------------------------------------------------------------------------------------------------------

    def event(self, rng, client, n):
        """A work event with its effects; in a fault window it may carry a plugin fault from the schedule."""
        event = {"type": "work", "id": "%s-%d" % (client, n), "v": rng.randint(-5, 10)}
        fx = []
        for _ in range(rng.choice([0, 0, 1, 1, 1, 2, 3])):
            plugin = rng.choice(EFFECT_PLUGINS)
            mode = "ok"
            if not self.calm.is_set():
                mode = rng.choices([m for m, _ in LIGHT_MODES], [w for _, w in LIGHT_MODES])[0]
            fx.append([plugin, mode])
        if not self.calm.is_set():
            try:
                target, mode = self.heavy_faults.popleft()
            except IndexError:
                target = None
            if target == "app":
                event["upd"] = mode
                if mode == "poison":
                    self.ledger.expect_reject[event["id"]] = "PluginCrashed"
            elif target:
                fx.append([target, mode])
        if fx:
            event["fx"] = fx
        return event

    def handle_reply(self, event_id, reply, now, latency=None):
        """Books the reply to one event: an ack, or the error it was expected to get."""
        expected = self.ledger.expect_reject.get(event_id)
        if reply.get("ok"):
            if expected:
                self.ledger.fail("event %s was acked (seq %s), expected %s" % (event_id, reply.get("seq"), expected))
            self.ledger.ack(event_id, reply["seq"], now, latency)
            return
        code = reply.get("error", {}).get("code")
        self.ledger.rejected[code] += 1
        if expected and code != expected and code != "StorageFailure":
            self.ledger.fail("event %s got %s, expected %s: %s" % (event_id, code, expected, reply))
        elif not expected and code not in ("StorageFailure",):
            self.ledger.fail("event %s got an error: %s" % (event_id, reply))

    def run_client(self, name, body):
        rng = random.Random("%s/%s" % (self.seed, name))

        def loop():
            while not self.finished.is_set():
                try:
                    body(rng)
                except (OSError, EOFError, ValueError):
                    time.sleep(rng.uniform(0.01, 0.1))
                except Exception:  # a bug in the harness: say so and stop the soak
                    self.ledger.fail("client %s: %s" % (name, traceback.format_exc()))
                    self.finished.set()
        thread = threading.Thread(target=loop, name=name, daemon=True)
        thread.start()
        self.threads.append(thread)

    def one_at_a_time(self, name, durable=False):
        counter = iter(range(1 << 62))

        def body(rng):
            with self.connect() as conn:
                while not self.finished.is_set():
                    event = self.event(rng, name, next(counter))
                    self.send_one(conn, event, durable)
                    if rng.random() < 0.02:
                        reply = conn.request("model")
                        self.archive.observe_model(reply["seq"], reply["model"], "%s: model" % name)
                    time.sleep(rng.choice([0, 0, 0.001, 0.005]))
        self.run_client(name, body)

    def probe_client(self, name):
        """A one-at-a-time client in a process of its own (`--probe`), so that its ack latencies are the daemon's
        and not this process's threads waiting for each other."""
        def run():
            while not self.finished.is_set():
                process = subprocess.Popen([PYTHON, os.path.abspath(__file__), "--probe", self.socket_path,
                                            "--bin", self.args.bin, "--seed", str(self.seed), "--name", name],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                self.known_children.add(process.pid)
                for line in process.stdout:
                    result = json.loads(line)
                    if "seq" in result:
                        self.ledger.count("events sent")
                        self.ledger.ack(result["id"], result["seq"], result["t"], result["latency"])
                    elif "error" in result:
                        self.ledger.count("events sent")
                        self.handle_reply(result["id"], result["error"], result["t"])
                    elif "lost" in result:
                        self.ledger.count("events sent")
                        with self.ledger.lock:
                            self.ledger.unanswered[result["id"]] = result["t"]
                    if self.finished.is_set():
                        break
                process.kill()
                process.wait()
        thread = threading.Thread(target=run, name=name, daemon=True)
        thread.start()
        self.threads.append(thread)

    def send_one(self, conn, event, durable):
        line = json.dumps(event, separators=(",", ":"))
        sent = time.time()
        self.ledger.count("events sent")
        try:
            reply = conn.request(line)
        except (OSError, EOFError, ValueError):
            if not durable:
                with self.ledger.lock:
                    self.ledger.unanswered[event["id"]] = sent
                raise
            self.resend(event)
            raise
        self.handle_reply(event["id"], reply, time.time())

    def resend(self, event):
        """A durable client's way after a broken connection: wait for the daemon, read the log up to its head, and
        send the event again only when the log does not have it."""
        with self.ledger.lock:
            self.ledger.unanswered[event["id"]] = time.time()
        while not self.finished.is_set():
            try:
                conn = self.connect()
            except OSError:
                time.sleep(0.05)
                continue
            try:
                head = conn.request("ping").get("seq")
                if head is None or not self.archive.wait_for(head, 60):
                    continue
                if event["id"] in self.archive.id_seqs:
                    self.ledger.count("durable: applied without an ack")
                    return
                with self.ledger.lock:
                    del self.ledger.unanswered[event["id"]]
                self.ledger.count("durable: sent again")
                self.ledger.count("events sent")
                sent = time.time()
                reply = conn.request(json.dumps(event, separators=(",", ":")))
                self.handle_reply(event["id"], reply, time.time(), None)
                return
            except (OSError, EOFError, ValueError):
                time.sleep(0.05)
            finally:
                conn.close()

    def pipelined(self, name):
        counter = iter(range(1 << 62))

        def body(rng):
            with self.connect() as conn:
                while not self.finished.is_set():
                    self.pipeline_batch(conn, rng, name, counter, "errors" if rng.random() < 0.3 else "on")
                    time.sleep(rng.uniform(0, 0.3))
        self.run_client(name, body)

    def pipeline_batch(self, conn, rng, name, counter, mode):
        # expect: per line, ("event", id) / ("bad", id, code) / ("model",) / ("reply",) / ("ping",)
        lines, expect = ["reply " + mode], [("reply",)]
        for _ in range(rng.randint(5, 200)):
            roll = rng.random()
            if roll < 0.01:
                event_id = "%s-%d" % (name, next(counter))
                lines.append(json.dumps({"type": "bad", "id": event_id}))
                expect.append(("bad", event_id, "InvalidEvent"))
            elif roll < 0.015:
                lines.append('{"type":"work", nope')
                expect.append(("bad", None, "InvalidJSON"))
            elif roll < 0.025:
                lines.append("model")
                expect.append(("model",))
            else:
                event = self.event(rng, name, next(counter))
                lines.append(json.dumps(event, separators=(",", ":")))
                expect.append(("event", event["id"]))
        lines.append("ping")
        expect.append(("ping",))
        first_line = conn.lines_sent + 1
        sent = time.time()
        self.ledger.count("events sent", sum(1 for e in expect if e[0] == "event"))
        outstanding = {i for i, e in enumerate(expect) if e[0] == "event"}
        index = 0       # the first line whose reply has not come
        last_seq = 0
        try:
            conn.send(lines)
            while index < len(expect):
                reply = conn.read()
                if reply.get("ok") is False:
                    at = reply.get("line", 0) - first_line
                    if not index <= at < len(expect) or (mode == "on" and at != index):
                        self.ledger.fail("%s: an error for line %s, expected line %d" % (
                            name, reply.get("line"), first_line + index))
                        raise ValueError("lost track of the replies")
                else:
                    at = index
                    # With `reply errors` acks are not sent: an ok reply belongs to the next command.
                    while mode == "errors" and expect[at][0] in ("event", "bad"):
                        at += 1
                # Lines skipped over were events applied without a reply (`reply errors`); a bad line must not be.
                for skipped in range(index, at):
                    if expect[skipped][0] == "bad":
                        self.ledger.fail("%s: line %d got no error" % (name, first_line + skipped))
                    elif expect[skipped][0] == "event":
                        outstanding.discard(skipped)
                        with self.ledger.lock:
                            self.ledger.must_apply[expect[skipped][1]] = time.time()
                kind = expect[at]
                index = at + 1
                if kind[0] == "event":
                    outstanding.discard(at)
                    if reply.get("ok"):
                        if reply["seq"] <= last_seq:
                            self.ledger.fail("%s: seq %d after seq %d on one connection" % (
                                name, reply["seq"], last_seq))
                        last_seq = reply["seq"]
                    self.handle_reply(kind[1], reply, time.time())
                elif kind[0] == "bad":
                    code = reply.get("error", {}).get("code")
                    self.ledger.rejected[code] += 1
                    if reply.get("ok") or code not in (kind[2], "StorageFailure"):
                        self.ledger.fail("%s: line %d should be %s, got %s" % (name, first_line + at, kind[2], reply))
                elif kind[0] == "reply":
                    if reply != {"ok": True, "reply": mode}:
                        self.ledger.fail("%s: reply %s answered %s" % (name, mode, reply))
                elif kind[0] == "model":
                    if reply.get("seq", 0) < last_seq:
                        self.ledger.fail("%s: model at seq %s after the ack of seq %d" % (
                            name, reply.get("seq"), last_seq))
                    self.archive.observe_model(reply["seq"], reply["model"], "%s: model" % name)
                    last_seq = max(last_seq, reply["seq"])
        except (OSError, EOFError, ValueError):
            with self.ledger.lock:
                for i in outstanding:
                    self.ledger.unanswered[expect[i][1]] = sent
            raise

    def stream_reader(self, name, kind, slow):
        """A subscriber (`subscribe`) or a `log` follower: models must come with growing seqs, log items with the
        next seq each; a share of them is checked against the archive."""
        subscriber = kind == "subscribe"

        def body(rng):
            with self.connect() as conn:
                if subscriber:
                    reply = conn.request("subscribe")
                    self.archive.observe_model(reply["seq"], reply["model"], "%s: subscribe" % name)
                    self.ledger.count("subscriptions")
                    last = reply["seq"]
                else:
                    since = max(0, self.archive.head - rng.randint(0, 5000))
                    reply = conn.request('log {"since":%d,"follow":true}' % since)
                    if not reply.get("ok"):
                        raise ValueError(str(reply))
                    last = reply["from"] - 1
                while not self.finished.is_set():
                    item = conn.read()
                    if "end" in item:
                        break
                    if item["seq"] <= last if subscriber else item["seq"] != last + 1:
                        self.ledger.fail("%s: seq %d after seq %d" % (name, item["seq"], last))
                    last = item["seq"]
                    self.ledger.count("models received" if subscriber else "log items followed")
                    if rng.random() < (0.05 if subscriber else 0.01):
                        if subscriber:
                            self.archive.observe_model(item["seq"], item["model"], "%s: published model" % name)
                        else:
                            self.archive.observe_event(item["seq"], item["event"], "%s: log" % name)
                    if slow:
                        time.sleep(rng.uniform(0.05, 0.5) if subscriber else rng.uniform(0, 0.002))
        self.run_client(name, body)

    def never_reader(self, name):
        """Asks for a stream and never reads it: the daemon must close the connection (stallTimeout) rather than
        hold its output."""
        def body(rng):
            with self.connect() as conn:
                kills = len(self.ledger.kills)
                conn.send([rng.choice(['log {"since":0,"follow":true}', "subscribe", "monitor"])] +
                          ["status"] * rng.randint(0, 200))
                self.finished.wait(11)
                if self.finished.is_set():
                    return
                conn.sock.settimeout(5)
                try:
                    while conn.sock.recv(1 << 20):
                        pass
                    closed = True
                except socket.timeout:
                    closed = False
                except OSError:
                    closed = True
                if len(self.ledger.kills) == kills:
                    self.stalled["closed by the daemon" if closed else "still open"] += 1
        self.run_client(name, body)

    def monitor(self):
        def body(rng):
            with self.connect() as conn:
                reply = conn.request("monitor")
                if not reply.get("ok"):
                    raise ValueError(str(reply))
                while not self.finished.is_set():
                    item = conn.read()
                    if item.get("trace") == "effect":
                        effect = item.get("effect") or {}
                        if isinstance(effect, dict) and str(effect.get("type", "")).startswith("fx."):
                            self.ledger.count("effects traced by monitor")
                            self.monitor_effects.add(effect.get("id"))
                    elif item.get("trace") == "dropped":
                        self.ledger.count("monitor traces dropped", item.get("count", 0))
        self.monitor_effects = set()
        self.run_client("monitor", body)

    # -- faults -------------------------------------------------------------------------------------------------------

    def restart_daemon(self, faults=None):
        """Starts the daemon (after a kill), retrying while the start fails (a full disk, an injected fault)."""
        for attempt in range(20):
            self.daemon.start(faults if attempt == 0 else None)
            hello = self.daemon.wait_ready()
            if hello:
                return hello
            self.ledger.count("daemon starts that failed")
            self.daemon.kill()
            log("the daemon did not start (attempt %d): %s" % (attempt + 1, self.daemon_log_tail(3)))
            self.free_disk()
            time.sleep(0.5)
        raise RuntimeError("the daemon does not start: " + self.daemon_log_tail(20))

    def daemon_log_tail(self, lines):
        try:
            with open(self.path("daemon.log"), "rb") as f:
                f.seek(max(0, os.path.getsize(self.path("daemon.log")) - 20000))
                return "\n".join(f.read().decode(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def kill_and_restart(self, rng, while_down=None):
        """SIGKILL, then a start (with fdatasync failures injected, at times); `while_down` runs between the start and
        the wait for readiness. The restarted daemon must hold every acked seq, and its model the recomputed one."""
        with self.daemon_lock:
            self._kill_and_restart(rng, while_down)

    def _kill_and_restart(self, rng, while_down):
        with self.ledger.lock:
            acked_before = max(self.ledger.acked_seq, default=0)
            self.ledger.kills.append(time.time())
        self.daemon.kill()
        self.fault_counts["SIGKILL"] += 1
        faults = None
        if rng.random() < 0.35 and not self.calm.is_set():
            faults = "fdatasync:EIO:%d" % rng.randint(20, 300)
            self.fault_counts["daemon runs with fdatasync failures"] += 1
        if while_down:
            self.daemon.start(faults)
            while_down()
            hello = self.daemon.wait_ready()
            if not hello:
                self.ledger.count("daemon starts that failed")
                log("the daemon did not start: %s" % self.daemon_log_tail(3))
                self.daemon.kill()
                hello = self.restart_daemon()
        else:
            hello = self.restart_daemon(faults)
        with self.ledger.lock:
            self.ledger.kill_windows.append((self.ledger.kills[-1], time.time()))
        if hello["seq"] < acked_before:
            self.ledger.fail("after a SIGKILL the daemon is at seq %d, but seq %d was acked" % (hello["seq"],
                                                                                             acked_before))
        self.check_model("after restart %d" % self.daemon.starts)

    def check_model(self, what):
        try:
            with self.connect() as conn:
                reply = conn.request("model")
            self.archive.observe_model(reply["seq"], reply["model"], "model " + what)
        except (OSError, EOFError, ValueError):
            pass

    def fill_disk(self, rng):
        """Fills the small file system for a while (the journal's writes and syncs fail with ENOSPC), then frees it."""
        path = os.path.join(self.fs, "filler")
        try:
            with open(path, "wb") as f:
                chunk = b"\xa5" * (1 << 20)
                while True:
                    f.write(chunk)
                    f.flush()
        except OSError:
            pass
        try:
            with open(path, "ab") as f:   # the last blocks, in smaller steps
                for size in (65536, 4096, 1024):
                    try:
                        while True:
                            f.write(b"\xa5" * size)
                            f.flush()
                    except OSError:
                        pass
        except OSError:
            pass
        start = time.time()
        self.fault_counts["disk filled"] += 1
        self.finished.wait(rng.uniform(1, 8))
        if rng.random() < 0.3:
            # A start on a full disk: its new segment cannot be written until space comes back.
            self.fault_counts["restarts on a full disk"] += 1
            self.kill_and_restart(rng, while_down=lambda: (self.finished.wait(rng.uniform(1, 5)), self.free_disk()))
        self.free_disk()
        self.ledger.disk_full.append((start, time.time()))

    def free_disk(self):
        try:
            os.unlink(os.path.join(self.fs, "filler"))
        except FileNotFoundError:
            pass

    def reload(self, rng, by_signal):
        # Under the daemon's lock: a start (after a crash) must never read the broken config written here.
        with self.daemon_lock:
            self._reload(rng, by_signal)

    def _reload(self, rng, by_signal):
        broken = rng.choice([None, None, "syntax", "unknown key", "range", "missing plugin"])
        kind = "invalid" if broken else "valid"
        if broken:
            self.daemon.write_config(broken=broken)
        else:
            self.daemon.write_config(generation=self.daemon.generation + 1)
        try:
            if by_signal:
                self.fault_counts["SIGHUP, %s config" % kind] += 1
                if self.daemon.pid:
                    os.kill(self.daemon.pid, signal.SIGHUP)
                time.sleep(1)   # the daemon reads the file on a thread of its own; keep it until it has
            else:
                self.fault_counts["reload command, %s config" % kind] += 1
                with self.connect(timeout=30) as conn:
                    reply = conn.request("reload")
                if bool(reply.get("ok")) != (broken is None):
                    self.ledger.fail("reload with a %s config (%s) answered %s" % (kind, broken, reply))
        except (OSError, EOFError, ValueError):
            pass
        finally:
            if broken:
                self.daemon.write_config()

    def restart_bus(self, rng):
        self.fault_counts["bus restarts"] += 1
        self.stop_bus()
        self.finished.wait(rng.uniform(0, 3))
        self.start_bus()

    def dbus_flood(self, rng):
        count = rng.randint(500, 5000)
        self.fault_counts["D-Bus floods"] += 1

        def run():
            done = subprocess.run([PYTHON, DBUS_PEER, "flood", self.bus_address, str(count)],
                                  capture_output=True, timeout=120)
            if done.returncode == 0:
                self.dbus_sent += count
        threading.Thread(target=run, daemon=True).start()

    def plugin_fault(self, rng):
        target = rng.choice(["app", "app"] + EFFECT_PLUGINS)
        mode = rng.choice(UPDATE_FAULTS if target == "app" else HEAVY_MODES)
        self.fault_counts["plugin faults: %s %s" % ("update" if target == "app" else "effect", mode)] += 1
        self.heavy_faults.append((target, mode))

    def plugin_restart(self, rng):
        name = rng.choice(["app", "beta", "beta"] + EFFECT_PLUGINS)
        self.fault_counts["plugin restarts by command"] += 1
        try:
            with self.connect() as conn:
                reply = conn.request('plugin {"restart":"%s"}' % name)
            if not reply.get("ok"):
                self.ledger.fail("plugin restart %s: %s" % (name, reply))
        except (OSError, EOFError, ValueError):
            pass

    def fault_schedule(self, end):
        rng = random.Random("%s/faults" % self.seed)
        actions = [(self.kill_and_restart, 5), (lambda r: self.reload(r, True), 5),
                   (lambda r: self.reload(r, False), 5), (self.fill_disk, 6), (self.restart_bus, 4),
                   (self.dbus_flood, 8), (self.plugin_fault, 40), (self.plugin_restart, 4)]
        while time.time() < end and not self.finished.is_set():
            self.finished.wait(rng.uniform(0.2, 2.5))
            if time.time() >= end:
                break
            action = rng.choices([a for a, _ in actions], [w for _, w in actions])[0]
            action(rng)

    # -- the run -------------------------------------------------------------------------------------------------------

    def run(self):
        log("seed %d; %d s (faults from %.0f s to %.0f s); mobiusd %s" % (
            self.seed, self.seconds, self.window, self.seconds - self.window, self.mobiusd))
        for directory in ("run", "markers"):
            os.makedirs(self.path(directory), mode=0o700)
        self.mount_small_fs()
        log("state directory on %s" % self.fs_kind)
        self.start_bus()
        self.daemon.write_config(generation=0)
        self.restart_daemon()
        self.known_children.add(self.daemon.process.pid)
        begin = time.time()
        threading.Thread(target=self.archive.follow, name="archive", daemon=True).start()
        threading.Thread(target=self.sampler, name="sampler", daemon=True).start()
        for i in range(2):
            self.probe_client("probe%d" % i)
        for i in range(3):
            self.one_at_a_time("one%d" % i)
        self.one_at_a_time("durable", durable=True)
        for i in range(2):
            self.pipelined("pipe%d" % i)
        self.stream_reader("sub-fast", "subscribe", slow=False)
        self.stream_reader("sub-slow", "subscribe", slow=True)
        self.stream_reader("follow-fast", "log", slow=False)
        self.stream_reader("follow-slow", "log", slow=True)
        self.never_reader("never-reads")
        self.monitor()

        # The windows compared for ack latency start `settle` seconds after a start, past the clients' reconnections.
        self.run_begin = begin
        self.load_begin = begin + self.settle
        self.finished.wait(self.window + self.settle)
        self.calm.clear()
        log("faults start")
        self.fault_schedule(begin + self.seconds - self.window)
        # The last window is calm, like the first: a daemon without injected faults, a free disk, a bus.
        self.calm.set()
        self.heavy_faults.clear()
        self.free_disk()
        if self.bus.poll() is not None:
            self.start_bus()
        if self.daemon.faults or self.daemon.generation % 3:
            self.kill_and_restart(random.Random(0))
        log("faults end")
        self.finished.wait(max(self.window + self.settle, begin + self.seconds - time.time()))
        self.load_end = time.time()
        self.finished.set()
        for thread in self.threads:
            thread.join(20)
        log("load stopped; checking")
        self.final_checks()

    # -- the checks -----------------------------------------------------------------------------------------------

    def final_checks(self):
        ledger = self.ledger
        # The archive catches up with the daemon's head (its follower runs until the checks are done).
        try:
            with self.connect() as conn:
                status = conn.request("status")
        except (OSError, EOFError, ValueError) as error:
            ledger.fail("status after the run: %s" % error)
            status = {}
        head = status.get("seq", 0)
        if not self.archive.wait_for(head, 120):
            ledger.fail("the archive reached only seq %d of %d" % (self.archive.head, head))
        self.check_model("at the end")
        self.check_full_log(head)
        self.check_effects()
        self.done.set()

        # No acknowledged event lost: each is in the log at its acked seq.
        archive = self.archive
        lost = [(seq, i) for seq, i in ledger.acked_seq.items() if seq > archive.head or archive.ids[seq - 1] != i]
        for seq, event_id in lost[:10]:
            ledger.fail("acked event %s (seq %d) is not at that seq in the log" % (event_id, seq))
        missing = [i for i in ledger.must_apply if i not in archive.id_seqs]
        for event_id in missing[:10]:
            ledger.fail("event %s (reply errors, no error, answered ping) is not in the log" % event_id)
        self.applied_unanswered = sum(1 for i in ledger.unanswered if i in archive.id_seqs)
        with archive.lock:
            archive._check_pending()
            if archive.pending:
                ledger.fail("%d observations of seqs the log never reached" % len(archive.pending))
        if self.stalled["still open"]:
            ledger.fail("%d clients that never read were not closed (stallTimeout)" % self.stalled["still open"])
        self.status = status
        self.check_daemon_stops()
        self.check_resources()

    def check_full_log(self, head):
        """`log` from seq 1 in one stream: gap-free, and the same events as the archive followed across restarts."""
        try:
            conn = self.connect(timeout=60)
            first = conn.request('log {"since":0}')
            expected = first["from"]
            if not self.archive.wait_for(first["seq"], 60):
                self.ledger.fail("the archive did not reach seq %d" % first["seq"])
            self.log_from = expected
            while True:
                item = conn.read()
                if "end" in item:
                    if item.get("error"):
                        self.ledger.fail("log from 1 ended with %s" % item)
                    break
                if item["seq"] != expected:
                    self.ledger.fail("log from 1: seq %d where %d was due" % (item["seq"], expected))
                    break
                if canonical(item["event"]) != self.archive.events[item["seq"] - 1]:
                    self.ledger.fail("log from 1: seq %d differs from what was followed" % item["seq"])
                expected += 1
            conn.close()
            if expected - 1 != first["seq"]:
                self.ledger.fail("log from 1 ended at seq %d, its head was %d" % (expected - 1, first["seq"]))
            if first.get("compacted") and first["from"] > (self.status_snapshot_seq() or 0) + 1:
                self.ledger.fail("log from 1 starts at %d, after the snapshot" % first["from"])
        except (OSError, EOFError, ValueError, KeyError) as error:
            self.ledger.fail("log from 1: %s" % error)

    def status_snapshot_seq(self):
        try:
            with self.connect() as conn:
                return conn.request("status")["state"]["snapshotSeq"]
        except (OSError, EOFError, ValueError, KeyError):
            return None

    def read_effect_records(self):
        ran = {}
        duplicates = []
        for name in EFFECT_PLUGINS:
            try:
                with open(self.path("ran-%s" % name)) as f:
                    for line in f:
                        parts = line.split()
                        if len(parts) != 2:
                            continue
                        if parts[0] in ran:
                            duplicates.append(parts[0])
                        ran[parts[0]] = float(parts[1])
            except FileNotFoundError:
                pass
        return ran, duplicates

    def check_effects(self):
        """Every effect of an acked event ran (the plugin's record) or was reported failed with a reason (an
        effectFailed event in the log), except those lost with a SIGKILLed daemon (effects are not journaled,
        docs/durability.md): still unsettled at a kill that came within `grace` seconds of their event's ack."""
        ledger = self.ledger
        grace = 10.0
        deadline = time.time() + 20
        while True:
            expected = {}
            for event_id, (seq, acked_at) in ledger.acked.items():
                if seq <= self.archive.head:
                    event = json.loads(self.archive.events[seq - 1])
                    for k, (plugin, mode) in enumerate(event.get("fx", [])):
                        expected["%s/%d" % (event_id, k)] = (acked_at, mode)
            ran, duplicates = self.read_effect_records()
            failed = {}
            for text in self.archive.events:
                if '"effectFailed"' in text:
                    event = json.loads(text)
                    if event.get("type") == "effectFailed":
                        effect_id = (event.get("effect") or {}).get("id")
                        failed[effect_id] = event.get("error") or {}
            unsettled = [i for i in expected if i not in ran and i not in failed]
            near_kill = [i for i in unsettled if self.lost_with_a_kill(expected[i][0], grace)]
            if len(near_kill) == len(unsettled) or time.time() > deadline:
                break
            time.sleep(1)
        lost, dropped = [], []
        for effect_id in unsettled:
            acked_at, mode = expected[effect_id]
            if self.lost_with_a_kill(acked_at, grace):
                lost.append(effect_id)
            else:
                dropped.append(effect_id)
        for effect_id in dropped[:10]:
            acked_at, mode = expected[effect_id]
            ledger.fail("effect %s (%s) of an acked event neither ran nor failed (acked at %.1fs)" % (
                effect_id, mode, acked_at - START))
        if dropped:
            ledger.fail("%d effects of acked events silently dropped" % len(dropped))
        for effect_id, error in failed.items():
            if error.get("code") not in FAILURE_CODES or not error.get("message"):
                ledger.fail("effect %s failed without a reason: %s" % (effect_id, error))
        phantom = [i for i in list(ran) + list(failed) + list(self.monitor_effects)
                   if i not in expected and not self.applied_somewhere(i)]
        for effect_id in phantom[:10]:
            ledger.fail("effect %s ran or failed but no applied event asked for it" % effect_id)
        for effect_id in duplicates[:10]:
            ledger.fail("effect %s ran twice" % effect_id)
        latencies = [ran[i] - expected[i][0] for i in expected if i in ran]
        self.effects = {"expected": len(expected), "ran": sum(1 for i in expected if i in ran),
                        "failed": sum(1 for i in expected if i in failed and i not in ran),
                        "ran and failed": sum(1 for i in expected if i in failed and i in ran),
                        "lost with a killed daemon": len(lost), "silently dropped": len(dropped),
                        "failure codes": collections.Counter(failed[i].get("code") for i in expected if i in failed),
                        "settle p99": percentile(latencies, 0.99), "settle max": max(latencies, default=None)}

    def lost_with_a_kill(self, acked_at, grace):
        """Whether a daemon was killed within `grace` seconds after this ack (an ack read after the kill but before
        the restarted daemon was ready came from the killed one)."""
        return any(kill <= acked_at + grace and acked_at <= ready for kill, ready in self.ledger.kill_windows)

    def applied_somewhere(self, effect_id):
        """Whether the effect belongs to an event in the log (an applied event whose ack was lost to a kill)."""
        event_id = str(effect_id).rsplit("/", 1)[0]
        return event_id in self.archive.id_seqs

    def check_daemon_stops(self):
        pid = self.daemon.pid
        if pid is None:
            self.ledger.fail("the daemon is not running at the end")
            return
        with self.daemon_lock:
            self.daemon.killing = True
        os.kill(pid, signal.SIGTERM)
        try:
            status = self.daemon.process.wait(30)
        except subprocess.TimeoutExpired:
            self.ledger.fail("the daemon did not exit within 30 s of SIGTERM")
            self.daemon.kill()
            return
        if status != 0:
            self.ledger.fail("the daemon exited %d after SIGTERM" % status)
        time.sleep(0.5)
        self.reap_orphans()
        table = self.process_table()
        ours = {os.getpid(), self.bus.pid if self.bus else None}
        left = [p for p, (state, _) in table.items() if p not in ours and state != "Z"]
        if left:
            self.ledger.fail("processes left after the daemon stopped: %s" % left)

    def check_resources(self):
        ledger = self.ledger
        if not self.samples:
            ledger.fail("no resource samples")
            return
        begin, end = self.load_begin, self.load_end

        def window(first):
            if first:
                return [s for s in self.samples if begin <= s[0] <= begin + self.window]
            return [s for s in self.samples if s[0] >= end - self.window]
        bounds = {"rss": (1, 256 << 20), "fds": (2, 200), "threads": (3, 40), "children": (4, 12)}
        self.maxima = {}
        for name, (index, bound) in bounds.items():
            peak = max(s[index] for s in self.samples)
            self.maxima[name] = peak
            if peak > bound:
                ledger.fail("%s reached %d, over the bound %d" % (name, peak, bound))
            first = max((s[index] for s in window(True)), default=0)
            last = max((s[index] for s in window(False)), default=0)
            slack = {"rss": 32 << 20, "fds": 16, "threads": 4, "children": 4}[name]
            if last > 2 * first + slack:
                ledger.fail("%s grew from %d in the first window to %d in the last" % (name, first, last))
        first = [lat for t, lat in ledger.latencies if begin <= t <= begin + self.window]
        last = [lat for t, lat in ledger.latencies if t >= end - self.window]
        self.p99 = (percentile(first, 0.99), percentile(last, 0.99), len(first), len(last))
        self.p50 = (percentile(first, 0.5), percentile(last, 0.5))
        if self.p99[0] is None or self.p99[1] is None:
            ledger.fail("no acks in the first or the last window")
        elif min(len(first), len(last)) < self.latency_samples:
            # A p99 of a few hundred acks is a handful of them: on a shared machine, noise (the 30-second run's case).
            log("ack p99 not compared: fewer than %d acks in a window" % self.latency_samples)
        elif self.p99[1] > 2 * self.p99[0] + 0.002:
            ledger.fail("ack p99 %.2f ms in the last window, over twice the first's %.2f ms" % (
                self.p99[1] * 1000, self.p99[0] * 1000))

    # -- the report ---------------------------------------------------------------------------------------------------

    def report(self):
        ledger = self.ledger
        counts = ledger.counts
        rows = [
            ("seed", self.seed), ("duration", "%d s (faults for %d s)" % (self.seconds, self.seconds - 2 * self.window)),
            ("state file system", self.fs_kind or "?"),
            ("events sent", counts["events sent"]), ("events acked", counts["events acked"]),
            ("events rejected as expected", sum(ledger.rejected.values())),
            ("  by code", ", ".join("%s %d" % kv for kv in sorted(ledger.rejected.items())) or "-"),
            ("events unanswered (connection lost)", "%d (%d of them applied)" % (
                len(ledger.unanswered), getattr(self, "applied_unanswered", 0))),
            ("durable resends / applied without ack", "%d / %d" % (counts["durable: sent again"],
                                                                 counts["durable: applied without an ack"])),
            ("events checked (log from 1, recomputed)", self.archive.head),
            ("model observations checked", self.archive.checked),
            ("log from 1 served from seq", getattr(self, "log_from", "?")),
            ("kills survived (SIGKILL + restart)", self.fault_counts["SIGKILL"]),
            ("daemon starts (failed)", "%d (%d)" % (self.daemon.starts, counts["daemon starts that failed"])),
        ]
        for key in sorted(self.fault_counts):
            if key != "SIGKILL":
                rows.append((key, self.fault_counts[key]))
        state = (getattr(self, "status", {}) or {}).get("state", {})
        dbus = ((getattr(self, "status", {}) or {}).get("dbus") or {}).get("soakbus", {})
        rows += [
            ("events refused with StorageFailure", ledger.rejected["StorageFailure"]),
            ("events applied without a reply (reply errors, checked)", len(ledger.must_apply)),
            ("D-Bus signals sent / applied", "%d / %d" % (self.dbus_sent, self.archive.model["types"].get("dbus", 0))),
            ("D-Bus source at the end (last daemon run)", "%s, %s dropped, %s reconnects" % (
                dbus.get("state", "?"), dbus.get("dropped", "?"), dbus.get("reconnects", "?"))),
            ("subscriptions / models received", "%d / %d" % (counts["subscriptions"], counts["models received"])),
            ("log items followed", counts["log items followed"]),
            ("never-reading clients closed by the daemon", "%d of %d" % (
                self.stalled["closed by the daemon"], sum(self.stalled.values()))),
        ]
        effects = getattr(self, "effects", {})
        if effects:
            rows += [
                ("effects expected (of acked events)", effects["expected"]),
                ("  ran / failed with a reason / both", "%d / %d / %d" % (
                    effects["ran"], effects["failed"], effects["ran and failed"])),
                ("  failure codes", ", ".join("%s %d" % kv for kv in sorted(effects["failure codes"].items()))),
                ("  lost with a killed daemon / silently dropped", "%d / %d" % (
                    effects["lost with a killed daemon"], effects["silently dropped"])),
                ("  settle time p99 / max", "%s / %s" % (
                    "%.3f s" % effects["settle p99"] if effects["settle p99"] is not None else "-",
                    "%.3f s" % effects["settle max"] if effects["settle max"] is not None else "-")),
                ("  traced by monitor (dropped traces)", "%d (%d)" % (counts["effects traced by monitor"],
                                                                       counts["monitor traces dropped"])),
            ]
        maxima = getattr(self, "maxima", {})
        if maxima:
            rows += [("max RSS", "%.1f MiB" % (maxima["rss"] / 1048576)), ("max fds", maxima["fds"]),
                     ("max threads", maxima["threads"]), ("max child processes", maxima["children"])]
        p99 = getattr(self, "p99", None)
        if p99 and p99[0] is not None and p99[1] is not None:
            rows.append(("ack p99 first / last window", "%.2f ms / %.2f ms (%d / %d acks, %.0f s windows%s)" % (
                p99[0] * 1000, p99[1] * 1000, p99[2], p99[3], self.window,
                "" if min(p99[2], p99[3]) >= self.latency_samples else "; too few to compare")))
            rows.append(("ack p50 first / last window", "%.2f ms / %.2f ms" % (self.p50[0] * 1000,
                                                                            self.p50[1] * 1000)))
        rows.append(("failed checks", counts["failed checks"]))
        width = max(len(k) for k, _ in rows)
        print("\n| %s | %s |" % ("what".ljust(width), "value"))
        print("|%s|%s|" % ("-" * (width + 2), "-" * 7))
        for key, value in rows:
            print("| %s | %s |" % (key.ljust(width), value))
        print()

    def plot(self, path):
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            self.ledger.fail("no matplotlib (python3-matplotlib) for the plot")
            return
        samples = [s for s in self.samples if s[0] <= self.load_end]
        if not samples:
            return
        t0 = self.run_begin
        figure, axes = plt.subplots(4, 1, figsize=(10, 9), sharex=True)
        times = [s[0] - t0 for s in samples]
        axes[0].plot(times, [s[1] / 1048576 for s in samples], color="tab:blue")
        axes[0].set_ylabel("RSS (MiB)")
        axes[1].plot(times, [s[2] for s in samples], color="tab:orange", label="fds")
        axes[1].plot(times, [s[3] for s in samples], color="tab:green", label="threads")
        axes[1].plot(times, [s[4] for s in samples], color="tab:red", label="child processes")
        axes[1].legend(loc="upper left", fontsize="small")
        axes[1].set_ylabel("count")
        buckets = collections.defaultdict(list)
        for t, latency in self.ledger.latencies:
            if t > self.load_end:
                continue
            buckets[int((t - t0) // 5)].append(latency)
        keys = sorted(buckets)
        axes[2].plot([k * 5 + 2.5 for k in keys], [percentile(buckets[k], 0.99) * 1000 for k in keys],
                     color="tab:purple")
        axes[2].set_yscale("log")
        axes[2].set_ylabel("ack p99 (ms, 5 s)")
        timeline = [e for e in self.ledger.events_timeline if e[0] <= self.load_end]
        rates = [(b[0] - t0, (b[2] - a[2]) / max(b[0] - a[0], 1e-3)) for a, b in zip(timeline, timeline[1:])]
        axes[3].plot([r[0] for r in rates], [r[1] for r in rates], color="tab:gray")
        axes[3].set_ylabel("events/s (applied)")
        axes[3].set_xlabel("seconds (red: SIGKILL and restart; shaded: disk full)")
        for axis in axes:
            for k in self.ledger.kills:
                axis.axvline(k - t0, color="red", alpha=0.3, linewidth=0.8)
            for start, end in self.ledger.disk_full:
                axis.axvspan(start - t0, end - t0, color="gold", alpha=0.2)
            axis.axvspan(self.settle, self.settle + self.window, color="green", alpha=0.05)
            axis.axvspan(self.load_end - t0 - self.window, self.load_end - t0, color="green", alpha=0.05)
        figure.suptitle("mobiusd soak: seed %d, %d s, %d kills" % (self.seed, self.seconds, len(self.ledger.kills)))
        figure.tight_layout()
        figure.savefig(path, dpi=90)
        plt.close(figure)
        log("plot: %s" % path)


def inner(args):
    soak = Soak(args)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    status = 1
    try:
        soak.run()
        soak.report()
        if args.plot:
            soak.plot(args.plot)
        status = 0 if not soak.ledger.failures and not soak.ledger.counts["failed checks"] else 1
    except KeyboardInterrupt:
        print("soak: interrupted", file=sys.stderr)
    except Exception:
        traceback.print_exc()
        soak.ledger.fail("the harness failed")
    finally:
        soak.finished.set()
        soak.done.set()
        soak.daemon.kill()
        soak.stop_bus()
        if status != 0:
            print("soak: failures:\n  " + "\n  ".join(soak.ledger.failures[:50]), file=sys.stderr)
            print("soak: the daemon's log ends:\n" + soak.daemon_log_tail(40), file=sys.stderr)
        soak.unmount_small_fs()
    print("soak: %s (seed %d)" % ("PASSED" if status == 0 else "FAILED", soak.seed), flush=True)
    return status


def probe(args):
    """`--probe SOCKET`: one event at a time, each reply awaited, a result line per event on stdout."""
    rng = random.Random("%s/%s" % (args.seed, args.name))
    counter = 0
    conn = None
    while True:
        try:
            if conn is None:
                conn = Connection(args.probe, timeout=30)
            counter += 1
            event = {"type": "work", "id": "%s-%d" % (args.name, counter), "v": 1}
            if rng.random() < 0.3:
                event["fx"] = [[rng.choice(EFFECT_PLUGINS), "ok"]]
            sent = time.time()
            try:
                reply = conn.request(json.dumps(event, separators=(",", ":")))
            except (OSError, EOFError, ValueError):
                print(json.dumps({"id": event["id"], "lost": True, "t": sent}), flush=True)
                raise
            now = time.time()
            if reply.get("ok"):
                print(json.dumps({"id": event["id"], "seq": reply["seq"], "t": now, "latency": now - sent}),
                      flush=True)
            else:
                print(json.dumps({"id": event["id"], "error": reply, "t": now}), flush=True)
            time.sleep(rng.choice([0, 0.001, 0.005]))
        except BrokenPipeError:
            return 0
        except (OSError, EOFError, ValueError):
            if conn is not None:
                conn.close()
            conn = None
            time.sleep(0.02)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--seconds", type=int, default=int(os.environ.get("SOAK_SECONDS", "600")))
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--plot")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--skip-without-namespaces", action="store_true")
    parser.add_argument("--inner")
    parser.add_argument("--probe")
    parser.add_argument("--name")
    args = parser.parse_args()
    if args.probe:
        return probe(args)
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 31)
    if args.plot:
        args.plot = os.path.abspath(args.plot)
    args.bin = os.path.abspath(args.bin)
    if args.inner:
        return inner(args)
    # The seed is fixed here, so the inner run (and a repeat) uses the same one.
    if "--seed" not in " ".join(sys.argv):
        sys.argv += ["--seed", str(args.seed)]
    print("soak: seed %d (repeat with --seed %d)" % (args.seed, args.seed), flush=True)
    return outer(args)


if __name__ == "__main__":
    sys.exit(main())
