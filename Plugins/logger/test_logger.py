"""mobiusd-logger (plain POSIX shell) driven over real pipes; logger(1) writes to a syslog socket the test owns."""
import os
import socket
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "sdk", "python"))
from mobiusd_plugin_testing import PluginProcess  # noqa: E402

PLUGIN = ["/bin/sh", os.path.join(HERE, "mobiusd-logger")]


class LoggerTests(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.scratch.name, "log")
        self.syslog = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.syslog.bind(self.path)
        self.syslog.settimeout(20)  # hang guard only

    def tearDown(self):
        self.syslog.close()
        self.scratch.cleanup()

    def test_refuses_to_run_without_mobiusd_plugin(self):
        run = subprocess.run(PLUGIN, stdin=subprocess.DEVNULL, capture_output=True, env={"PATH": os.environ["PATH"]})
        self.assertEqual(run.returncode, 2)
        self.assertIn(b"mobiusd-logger is a mobiusd plugin", run.stderr)

    def test_effects_reach_syslog_with_tag_and_priority(self):
        with PluginProcess(PLUGIN, app="demo", env={"LOGGER_SOCKET": self.path}) as plugin:
            result = plugin.initialize()
            self.assertEqual((result["protocol"], result["effects"], result["update"]), (1, ["syslog"], False))
            self.assertEqual(plugin.call("ping")["result"], {})
            effect = {"type": "syslog", "priority": "err", "message": "disk \"full\""}
            self.assertEqual(plugin.call("effect", {"effect": effect})["result"], {})
            record = self.syslog.recv(65536).decode()
            # <PRI>: facility user (1) * 8 + err (3) = 11.
            self.assertTrue(record.startswith("<11>"), record)
            self.assertIn("demo", record)
            self.assertIn('{"type":"syslog","priority":"err","message":"disk \\"full\\""}', record)
            plugin.call("effect", {"effect": {"type": "syslog", "message": "plain"}})
            self.assertTrue(self.syslog.recv(65536).decode().startswith("<13>"))  # notice
            self.assertEqual(plugin.call("frobnicate")["error"]["code"], -32601)
            reply, rest, status = plugin.close()
            self.assertEqual((reply["result"], rest, status), ({}, [], 0))

    def test_a_logger_failure_fails_the_effect(self):
        self.syslog.close()
        with PluginProcess(PLUGIN, env={"LOGGER_SOCKET": self.path + ".missing"}) as plugin:
            plugin.initialize()
            reply = plugin.call("effect", {"effect": {"type": "syslog", "message": "x"}})
            self.assertIn("logger failed", reply["error"]["message"])


if __name__ == "__main__":
    unittest.main()
