"""mobiusd-exec driven over real pipes: configured commands only, argv never through a shell, bounded output."""
import os
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "sdk", "python"))
from mobiusd_plugin_testing import PluginProcess  # noqa: E402

PLUGIN = [os.path.join(HERE, "mobiusd-exec")]
COMMANDS = {
    "echo": {"argv": ["/bin/echo", "hello"], "allowArgs": True},
    "fixed": {"argv": ["/bin/echo", "fixed"]},
    "fail": {"argv": ["/bin/sh", "-c", "echo oops >&2; exit 3"]},
    "cat": {"argv": ["/bin/cat"], "maxOutputBytes": 10},
    "sleep": {"argv": ["/bin/sleep", "60"], "timeout": 0.2},
    "pidSleep": {"argv": ["/bin/sh", "-c", "echo $$ > \"$0\"; exec sleep 60"], "allowArgs": True},
    "env": {"argv": ["/usr/bin/env"], "env": {"EXTRA": "yes"}},
    "missing": {"argv": ["/nonexistent/program"]},
}


class ExecTests(unittest.TestCase):
    def setUp(self):
        self.plugin = PluginProcess(PLUGIN)
        result = self.plugin.initialize(options={"commands": COMMANDS})
        self.assertEqual(result["effects"], ["exec"])

    def tearDown(self):
        self.plugin.kill()

    def run_effect(self, effect):
        return self.plugin.call("effect", {"effect": dict({"type": "exec"}, **effect)})

    def test_argv_from_the_effect_is_passed_verbatim_never_through_a_shell(self):
        reply = self.run_effect({"command": "echo", "args": ["$(id)", "; rm -rf /", "a b"], "tag": 7})
        event = reply["result"]["events"][0]
        self.assertEqual(event["type"], "exec.done")
        self.assertEqual(event["stdout"], "hello $(id) ; rm -rf / a b\n")
        self.assertEqual((event["exitCode"], event["signal"], event["timedOut"], event["tag"]), (0, None, False, 7))

    def test_only_configured_commands_and_args_only_when_allowed(self):
        self.assertIn("not configured", self.run_effect({"command": "/bin/sh"})["error"]["message"])
        self.assertIn("not configured", self.run_effect({"command": ["echo"]})["error"]["message"])
        self.assertIn("takes no args", self.run_effect({"command": "fixed", "args": ["x"]})["error"]["message"])
        self.assertIn("array of strings", self.run_effect({"command": "echo", "args": "x"})["error"]["message"])
        self.assertIn("array of strings", self.run_effect({"command": "echo", "args": ["a\0b"]})["error"]["message"])
        self.assertEqual(self.run_effect({"command": "fixed"})["result"]["events"][0]["stdout"], "fixed\n")

    def test_exit_status_stderr_and_bounded_output(self):
        event = self.run_effect({"command": "fail"})["result"]["events"][0]
        self.assertEqual((event["exitCode"], event["stderr"]), (3, "oops\n"))
        event = self.run_effect({"command": "cat", "stdin": "0123456789abcdef"})["result"]["events"][0]
        self.assertEqual((event["stdout"], event["truncated"]), ("0123456789", True))

    def test_timeout_kills_the_command(self):
        event = self.run_effect({"command": "sleep"})["result"]["events"][0]
        self.assertEqual((event["timedOut"], event["signal"]), (True, 9))

    def test_cancel_kills_the_command_and_sends_nothing(self):
        with tempfile.TemporaryDirectory() as scratch:
            pidfile = os.path.join(scratch, "pid")
            rid = self.plugin.effect({"type": "exec", "command": "pidSleep", "args": [pidfile]})
            while not os.path.exists(pidfile) or not open(pidfile).read().strip():
                self.assertEqual(self.plugin.call("ping")["result"], {})
            pid = int(open(pidfile).read())
            self.plugin.notify("cancel", {"id": rid})
            self.assertEqual(self.plugin.call("ping")["result"], {})
            deadline = time.monotonic() + 20  # hang guard only
            while os.path.exists("/proc/%d" % pid) and "Z" not in open("/proc/%d/stat" % pid).read().split()[2]:
                self.assertLess(time.monotonic(), deadline, "the command outlived its cancelled effect")
                time.sleep(0.01)
            _, rest, status = self.plugin.close()
            self.assertEqual((rest, status), ([], 0))

    def test_environment_has_config_env_and_no_mobiusd_variables(self):
        lines = self.run_effect({"command": "env"})["result"]["events"][0]["stdout"].splitlines()
        self.assertIn("EXTRA=yes", lines)
        self.assertFalse([line for line in lines if line.startswith("MOBIUSD_")])

    def test_a_missing_program_fails_the_effect(self):
        self.assertIn("cannot start /nonexistent/program", self.run_effect({"command": "missing"})["error"]["message"])


class ExecConfigTests(unittest.TestCase):
    def test_bad_configs_refuse_the_start_naming_the_key(self):
        for options, words in [
            ({}, "options.commands"),
            ({"commands": {"x": {"argv": []}}}, "options.commands.x.argv"),
            ({"commands": {"x": {"argv": "ls"}}}, "options.commands.x.argv"),
            ({"commands": {"x": {"argv": ["ls"], "shell": True}}}, "unknown key(s) shell"),
            ({"commands": {"x": {"argv": ["ls"], "timeout": -1}}}, "x.timeout"),
            ({"commands": {"x": {"argv": ["ls"]}}, "colour": 1}, "unknown option(s): colour"),
        ]:
            with PluginProcess(PLUGIN) as plugin:
                reply = plugin.call("initialize", {"protocol": 1, "options": options})
                self.assertIn(words, reply["error"]["message"])
                self.assertEqual(plugin.process.wait(timeout=20), 1)


if __name__ == "__main__":
    unittest.main()
