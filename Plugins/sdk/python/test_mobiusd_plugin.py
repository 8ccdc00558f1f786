"""Tests of the Python SDK: a real fixture plugin process driven over pipes, as mobiusd drives plugins."""
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mobiusd_plugin_testing import Failed, Handled, PluginProcess, Rejected, RunningPlugin  # noqa: E402
import mobiusd_plugin as mp  # noqa: E402

FIXTURE = [sys.executable, os.path.join(HERE, "fixture_plugin.py")]


class HandshakeTests(unittest.TestCase):
    def test_refuses_to_run_without_mobiusd_plugin(self):
        run = subprocess.run(FIXTURE, stdin=subprocess.DEVNULL, capture_output=True, env={"PATH": os.environ["PATH"]})
        self.assertEqual(run.returncode, 2)
        self.assertIn(b"fixture is a mobiusd plugin", run.stderr)
        self.assertEqual(run.stdout, b"")

    def test_initialize_announces_effects_update_and_batch_then_starts_sources(self):
        with PluginProcess(FIXTURE, app="counter", name="fx") as plugin:
            result = plugin.initialize()
            self.assertEqual(result["protocol"], 1)
            self.assertEqual(result["name"], "fixture")
            self.assertEqual(result["version"], "1.2.3")
            self.assertIn("echo", result["effects"])
            self.assertIs(result["update"], True)
            self.assertIs(result["batch"], True)
            self.assertEqual(plugin.read()["params"], {"event": {"type": "started", "app": "counter", "plugin": "fx"}})
            reply, rest, status = plugin.close()
            self.assertEqual(reply["result"], {})
            self.assertEqual(rest, [])
            self.assertEqual(status, 0)

    def test_on_initialize_can_refuse_the_start(self):
        with PluginProcess(FIXTURE) as plugin:
            reply = plugin.call("initialize", {"protocol": 1, "app": "a", "plugin": "p", "options": {"refuse": True}})
            self.assertEqual(reply["error"]["message"], "refused: options say so")
            self.assertEqual(plugin.process.wait(timeout=20), 1)

    def test_requests_before_initialize_and_a_second_initialize_are_errors(self):
        with PluginProcess(FIXTURE) as plugin:
            self.assertEqual(plugin.call("effect", {"effect": "echo"})["error"]["code"], -32002)
            self.assertEqual(plugin.call("ping")["result"], {})
            plugin.initialize()
            # The fixture's start hook emits "started" once initialized; read it first, or it may come before the
            # reply below (a race seen in a clean-clone run).
            self.assertEqual(plugin.read()["params"]["event"]["type"], "started")
            self.assertEqual(plugin.call("initialize", {"protocol": 1})["error"]["code"], -32600)

    def test_options_reach_handlers(self):
        with PluginProcess(FIXTURE) as plugin:
            plugin.initialize(options={"dir": "/tmp", "n": [1, 2]})
            plugin.read()  # started
            self.assertEqual(plugin.call("effect", {"effect": "options"})["result"], {"events": [{"dir": "/tmp", "n": [1, 2]}]})


class EffectTests(unittest.TestCase):
    def setUp(self):
        self.plugin = PluginProcess(FIXTURE)
        self.plugin.initialize()
        self.assertEqual(self.plugin.read()["params"]["event"]["type"], "started")

    def tearDown(self):
        self.plugin.kill()

    def test_result_events_for_every_key_shape(self):
        for effect in ("echo", {"type": "echo", "x": 1}, {"echo": {"x": 2}}):
            reply = self.plugin.call("effect", {"effect": effect})
            self.assertEqual(reply["result"], {"events": [{"type": "echoed", "effect": effect}]})

    def test_tied_events_come_before_the_result(self):
        rid = self.plugin.effect({"type": "tied", "count": 3})
        before, reply = self.plugin.reply(rid)
        self.assertEqual(before, [{"jsonrpc": "2.0", "method": "event", "params": {"id": rid, "event": {"type": "tick", "n": n}}}
                                  for n in range(3)])
        self.assertEqual(reply["result"], {"events": [{"type": "done"}]})

    def test_errors_from_plugin_error_and_from_other_exceptions(self):
        self.assertEqual(self.plugin.call("effect", {"effect": "fail"})["error"], {"code": -32001, "message": "failed on purpose"})
        error = self.plugin.call("effect", {"effect": "crash"})["error"]
        self.assertEqual(error["code"], -32000)
        self.assertIn("ZeroDivisionError", error["message"])
        self.assertIn("not JSON", self.plugin.call("effect", {"effect": "nan"})["error"]["message"])
        # The plugin still works.
        self.assertIn("result", self.plugin.call("effect", {"effect": "echo"}))

    def test_an_exception_other_than_plugin_error_logs_its_traceback(self):
        self.assertIn("ZeroDivisionError", self.plugin.call("effect", {"effect": "crash"})["error"]["message"])
        self.plugin.close()
        self.assertIn("<3>Traceback (most recent call last):", self.plugin.stderr_lines)
        self.assertIn("<3>ZeroDivisionError: division by zero", self.plugin.stderr_lines)

    def test_sys_exit_in_a_handler_is_the_plugins_exit_status(self):
        for key, status in (("exit", 4), ("exitAsync", 5)):
            with PluginProcess(FIXTURE) as plugin:
                plugin.initialize()
                plugin.effect({"type": key, "status": status})
                self.assertEqual(plugin.process.wait(timeout=20), status, key)

    def test_unknown_and_unroutable_effects_and_bad_params(self):
        self.assertIn('no handler for key "nope"', self.plugin.call("effect", {"effect": "nope"})["error"]["message"])
        self.assertIn("unroutable", self.plugin.call("effect", {"effect": {"a": 1, "b": 2}})["error"]["message"])
        self.assertIn("unroutable", self.plugin.call("effect", {"effect": [1]})["error"]["message"])
        self.assertEqual(self.plugin.call("effect", {})["error"]["code"], -32602)
        self.assertEqual(self.plugin.call("effect")["error"]["code"], -32602)
        self.assertEqual(self.plugin.call("frobnicate")["error"]["code"], -32601)

    def test_progress_then_cancel_async_and_thread_handlers(self):
        for key in ("slow", "slowThread"):
            rid = self.plugin.effect(key)
            self.assertEqual(self.plugin.read(), {"jsonrpc": "2.0", "method": "progress", "params": {"id": rid}})
            self.plugin.notify("cancel", {"id": rid})
            # Wait until the handler has seen the cancellation and tried to send; nothing of it may arrive.
            while True:
                before, reply = self.plugin.reply(self.plugin.effect("cancelled"))
                self.assertEqual(before, [])
                counts = reply["result"]["events"][0]
                if counts["async" if key == "slow" else "sync"] == 1:
                    break
            self.plugin.notify("cancel", {"id": rid})  # a second cancel, and one for an unknown id, are harmless
            self.plugin.notify("cancel", {"id": 999})
            self.assertEqual(self.plugin.call("ping")["result"], {})
        reply, rest, status = self.plugin.close()
        self.assertEqual(rest, [])
        self.assertEqual(status, 0)

    def test_unsolicited_events_from_a_handler_thread(self):
        rid = self.plugin.effect({"type": "emit", "count": 500})
        before, reply = self.plugin.reply(rid)
        self.assertEqual(reply["result"], {})
        self.assertEqual([m["params"] for m in before], [{"event": {"type": "unsolicited", "n": n, "thread": True}} for n in range(500)])

    def test_a_stray_print_goes_to_stderr_not_the_protocol(self):
        self.assertEqual(self.plugin.call("effect", {"effect": "print"})["result"], {"events": [{"type": "printed"}]})
        self.plugin.close()
        self.assertIn("a stray line on stdout", self.plugin.stderr_lines)

    def test_log_lines_carry_priorities_and_are_cut(self):
        self.plugin.call("effect", {"effect": {"type": "log", "priority": 3, "message": "first\nsecond"}})
        self.plugin.call("effect", {"effect": {"type": "log", "priority": 9, "message": "é" * 5000}})
        self.plugin.close()
        self.assertIn("<3>first", self.plugin.stderr_lines)
        self.assertIn("<3>second", self.plugin.stderr_lines)
        long = [line for line in self.plugin.stderr_lines if line.startswith("<7>é")][0]
        self.assertTrue(long.endswith("[5904 more bytes cut]"), long[-40:])

    def test_concurrent_effects_each_get_one_reply(self):
        ids = [self.plugin.effect({"type": "echo", "n": n}) for n in range(200)]
        replies = {}
        while len(replies) < len(ids):
            message = self.plugin.read()
            replies[message["id"]] = message["result"]["events"][0]["effect"]["n"]
        self.assertEqual(replies, {rid: n for n, rid in enumerate(ids)})


class LimitAndGarbageTests(unittest.TestCase):
    def test_garbage_from_the_host_gets_json_rpc_errors_and_the_plugin_goes_on(self):
        with PluginProcess(FIXTURE) as plugin:
            plugin.initialize()
            plugin.read()
            cases = [
                (b"garbage\n", -32700), (b"{\"jsonrpc\":\"2.0\",\n", -32700), (b"[1,2]\n", -32600),
                (b"\"text\"\n", -32600), (b"{\"id\":1,\"method\":\"ping\"}\n", -32600),
                (b"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}\n", -32600),
                (b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}\n", -32600),
                (b"\xff\xfe{}\n", -32700), (b"NaN\n", -32700), (b"[" * 100000 + b"\n", -32700),
                (b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"update\",\"params\":[]}\n", -32602),
                (b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"updateBatch\",\"params\":{\"events\":3}}\n", -32602),
            ]
            for data, code in cases:
                plugin.send_raw(data)
                self.assertEqual(plugin.read()["error"]["code"], code, data[:40])
            # Responses, blank lines and unknown notifications get no answer.
            plugin.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n   \r\n{\"jsonrpc\":\"2.0\",\"method\":\"what\"}\n")
            plugin.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"cancel\",\"params\":5}\n")
            self.assertEqual(plugin.call("ping")["result"], {})
            _, rest, status = plugin.close()
            self.assertEqual((rest, status), ([], 0))

    def test_lines_over_the_limit_in_and_out(self):
        with PluginProcess(FIXTURE, env={"FIXTURE_MAX_LINE": "4096"}) as plugin:
            plugin.initialize()
            plugin.read()
            plugin.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"effect\",\"params\":{\"effect\":\"" + b"x" * 100000 + b"\"}}\n")
            error = plugin.read()
            self.assertEqual((error["id"], error["error"]["code"]), (None, -32600))
            self.assertIn("exceeds the limit of 4096", error["error"]["message"])
            self.assertIn("over the host's line limit", plugin.call("effect", {"effect": {"type": "big", "size": 5000}})["error"]["message"])
            self.assertEqual(plugin.call("effect", {"effect": {"type": "big", "size": 3000}})["result"], {"events": ["x" * 3000]})
            # A final line without a newline, then EOF: handled, then the plugin exits 0.
            plugin.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"ping\"}")
            plugin.process.stdin.close()
            self.assertEqual(plugin.read()["id"], 77)
            self.assertIsNone(plugin.read())
            self.assertEqual(plugin.process.wait(timeout=20), 0)


class UpdateTests(unittest.TestCase):
    def setUp(self):
        self.plugin = PluginProcess(FIXTURE)
        self.plugin.initialize()
        self.plugin.read()

    def tearDown(self):
        self.plugin.kill()

    def test_init_and_update(self):
        self.assertEqual(self.plugin.call("init", {"model": None})["result"], {"model": 0, "effects": [{"type": "echo"}]})
        self.assertEqual(self.plugin.call("init", {"model": 5})["result"], {})
        self.assertEqual(self.plugin.call("update", {"model": 5, "event": {"type": "inc"}})["result"],
                         {"model": 6, "effects": [{"type": "echo", "count": 6}]})
        self.assertEqual(self.plugin.call("update", {"model": 5, "event": "other"})["result"], {})
        self.assertEqual(self.plugin.call("update", {"model": 5, "event": {"type": "reject"}})["error"],
                         {"code": -32000, "message": "reject refused at 5"})

    def test_update_batch_with_a_rejected_event(self):
        reply = self.plugin.call("updateBatch", {"model": 1, "events": [{"type": "inc"}, {"type": "reject"}, {"type": "inc"}, "x"]})
        self.assertEqual(reply["result"], {"model": 3, "results": [
            {"effects": [{"type": "echo", "count": 2}]},
            {"error": {"code": -32000, "message": "reject refused at 2"}},
            {"effects": [{"type": "echo", "count": 3}]},
            {},
        ]})
        self.assertEqual(self.plugin.call("updateBatch", {"model": 1, "events": ["x", {"type": "reject"}]})["result"],
                         {"results": [{}, {"error": {"code": -32000, "message": "reject refused at 1"}}]})
        self.assertEqual(self.plugin.call("updateBatch", {"model": 1, "events": []})["result"], {"results": []})

    def test_sys_exit_in_update_is_the_plugins_exit_status(self):
        self.plugin.request("update", {"model": 1, "event": {"type": "exit", "status": 3}})
        self.assertEqual(self.plugin.process.wait(timeout=20), 3)

    def test_an_update_that_raises_crashes_the_plugin_with_its_traceback(self):
        for method, params in (("update", {"model": 1, "event": {"type": "boom"}}),
                               ("updateBatch", {"model": 1, "events": [{"type": "inc"}, {"type": "boom"}]})):
            with PluginProcess(FIXTURE) as plugin:
                plugin.initialize()
                self.assertEqual(plugin.read()["params"]["event"]["type"], "started")
                plugin.request(method, params)
                self.assertEqual(plugin.process.wait(timeout=20), 1, method)
                sent = []
                while (message := plugin.read()) is not None:
                    sent.append(message)
                plugin.kill()  # waits for the rest of stderr
                self.assertEqual(sent, [], "no answer blames the event: %s" % method)
                self.assertIn("<3>Traceback (most recent call last):", plugin.stderr_lines, method)
                self.assertIn("<3>ZeroDivisionError: division by zero", plugin.stderr_lines, method)

    def test_batch_matches_one_at_a_time(self):
        events = [{"type": t} for t in ("inc", "reject", "x", "inc", "inc", "reject")]
        model, singles = 0, []
        for event in events:
            reply = self.plugin.call("update", {"model": model, "event": event})
            if "error" in reply:
                singles.append({"error": reply["error"]})
                continue
            model = reply["result"].get("model", model)
            singles.append({k: v for k, v in reply["result"].items() if k == "effects"})
        batch = self.plugin.call("updateBatch", {"model": 0, "events": events})["result"]
        self.assertEqual((batch["model"], batch["results"]), (model, singles))


class RunningPluginTests(unittest.TestCase):
    """The author's helper: answers come back as values that compare with == and print as they would be written."""

    def setUp(self):
        self.plugin = RunningPlugin(FIXTURE, app="counter", name="fx")

    def tearDown(self):
        self.plugin.stop()

    def test_init_and_update_answer_next_values(self):
        self.assertEqual(self.plugin.init(None), mp.Next(0, [{"type": "echo"}]))
        self.assertEqual(self.plugin.init(5), mp.Next())
        self.assertEqual(self.plugin.update(5, {"type": "inc"}), mp.Next(6, [{"type": "echo", "count": 6}]))
        self.assertEqual(self.plugin.update(5, "other"), mp.Next())
        self.assertNotEqual(self.plugin.update(5, {"type": "inc"}), mp.Next(6))
        self.assertEqual(self.plugin.update(5, {"type": "reject"}), Rejected("reject refused at 5"))
        self.assertEqual(self.plugin.events, [{"type": "started", "app": "counter", "plugin": "fx"}])

    def test_values_print_as_they_are_written(self):
        self.assertEqual(repr(mp.Next(6, [{"type": "echo"}])), "Next(6, [{'type': 'echo'}])")
        self.assertEqual(repr(mp.Next(effects=[{"type": "echo"}])), "Next(effects=[{'type': 'echo'}])")
        self.assertEqual(repr(mp.Next()), "Next()")
        self.assertEqual(repr(mp.Next(None)), "Next(None)")
        self.assertEqual(repr(Rejected("no", code=7)), "Rejected('no', code=7)")
        self.assertEqual(repr(Handled([{"type": "done"}])), "Handled([{'type': 'done'}])")
        self.assertEqual(repr(Failed("boom")), "Failed('boom', code=-32000)")
        with self.assertRaises(AssertionError) as failure:
            self.assertEqual(self.plugin.update(5, {"type": "inc"}), mp.Next(7))
        self.assertIn("Next(6, [{'type': 'echo', 'count': 6}]) != Next(7)", str(failure.exception))

    def test_effects_answer_the_events_they_send_in_order(self):
        self.assertEqual(self.plugin.effect({"type": "tied", "count": 2}),
                         Handled([{"type": "tick", "n": 0}, {"type": "tick", "n": 1}, {"type": "done"}]))
        self.assertEqual(self.plugin.effect({"type": "echo"}),
                         Handled([{"type": "echoed", "effect": {"type": "echo"}}]))
        self.assertEqual(self.plugin.effect({"type": "nobody"}),
                         Failed('no handler for key "nobody"', code=-32602))


class UnitTests(unittest.TestCase):
    def test_effect_key(self):
        self.assertEqual(mp.effect_key("a"), "a")
        self.assertEqual(mp.effect_key({"type": "b", "x": 1}), "b")
        self.assertEqual(mp.effect_key({"c": {}}), "c")
        self.assertIsNone(mp.effect_key({"type": 1, "x": 2}))
        self.assertEqual(mp.effect_key({"type": 1}), "type")
        self.assertIsNone(mp.effect_key([]))
        self.assertIsNone(mp.effect_key(None))

    def test_registering_a_key_twice_is_an_error(self):
        plugin = mp.Plugin("x")
        plugin.handle("a", lambda r: None)
        with self.assertRaises(ValueError):
            plugin.handle("a", lambda r: None)


if __name__ == "__main__":
    unittest.main()
