"""mobiusd-file driven over real pipes: atomic writes under one directory, traversal and symlinks refused."""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "sdk", "python"))
from mobiusd_plugin_testing import PluginProcess  # noqa: E402

PLUGIN = [os.path.join(HERE, "mobiusd-file")]


class FileTests(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.directory = os.path.join(self.scratch.name, "status")
        os.mkdir(self.directory)
        self.outside = os.path.join(self.scratch.name, "outside")
        with open(self.outside, "w") as f:
            f.write("untouched")
        self.plugin = PluginProcess(PLUGIN)
        self.plugin.initialize(options={"directory": self.directory, "mode": "0640", "maxBytes": 100,
                                        "event": {"type": "fileWritten"}})

    def tearDown(self):
        self.plugin.kill()
        self.scratch.cleanup()

    def write(self, path, value, **extra):
        return self.plugin.call("effect", {"effect": dict({"type": "file.write", "path": path, "value": value}, **extra)})

    def read(self, path):
        with open(os.path.join(self.directory, path)) as f:
            return f.read()

    def test_strings_are_written_as_is_other_values_as_json_lines(self):
        self.assertEqual(self.write("battery", "87%", tag=1)["result"],
                         {"events": [{"type": "fileWritten", "path": "battery", "bytes": 3, "tag": 1}]})
        self.assertEqual(self.read("battery"), "87%")
        self.write("battery", {"level": 86, "charging": True})
        self.assertEqual(self.read("battery"), '{"level":86,"charging":true}\n')
        self.write("sub/dir/cpu", 12)
        self.assertEqual(self.read("sub/dir/cpu"), "12\n")
        self.assertEqual(os.stat(os.path.join(self.directory, "battery")).st_mode & 0o777, 0o640)
        self.assertEqual([n for n in os.listdir(self.directory) if n.endswith(".tmp")], [])

    def test_traversal_and_absolute_paths_are_refused(self):
        for path in ("../outside", "/etc/passwd", "a/../../outside", "./x", "a//b", "", "x\0y", 5, None):
            reply = self.write(path, "pwned")
            self.assertIn("error", reply, path)
        with open(self.outside) as f:
            self.assertEqual(f.read(), "untouched")

    def test_symbolic_links_inside_the_directory_are_not_followed(self):
        os.symlink(self.outside, os.path.join(self.directory, "link"))
        os.symlink(self.scratch.name, os.path.join(self.directory, "dirlink"))
        self.assertIn("error", self.write("dirlink/outside", "pwned"))
        self.assertIn("result", self.write("link", "replaced"))  # the link itself is replaced by a file
        self.assertFalse(os.path.islink(os.path.join(self.directory, "link")))
        with open(self.outside) as f:
            self.assertEqual(f.read(), "untouched")

    def test_size_limit_and_missing_value(self):
        self.assertIn("exceeds maxBytes", self.write("big", "x" * 101)["error"]["message"])
        reply = self.plugin.call("effect", {"effect": {"type": "file.write", "path": "novalue"}})
        self.assertIn('needs a "value"', reply["error"]["message"])
        self.assertFalse(os.path.exists(os.path.join(self.directory, "big")))

    def test_remove(self):
        self.write("gone", "x")
        remove = {"type": "file.remove", "path": "gone"}
        self.assertEqual(self.plugin.call("effect", {"effect": remove})["result"]["events"][0]["removed"], True)
        self.assertFalse(os.path.exists(os.path.join(self.directory, "gone")))
        self.assertEqual(self.plugin.call("effect", {"effect": remove})["result"]["events"][0]["removed"], False)
        self.assertIn("error", self.plugin.call("effect", {"effect": {"type": "file.remove", "path": "../outside"}}))
        self.assertTrue(os.path.exists(self.outside))


class FileConfigTests(unittest.TestCase):
    def test_bad_configs_refuse_the_start(self):
        for options, words in [({}, "options.directory"), ({"directory": "relative"}, "absolute"),
                               ({"directory": "/nonexistent-dir"}, "not a directory"),
                               ({"directory": "/tmp", "mode": "999"}, "options.mode"),
                               ({"directory": "/tmp", "size": 1}, "unknown option(s): size")]:
            with PluginProcess(PLUGIN) as plugin:
                reply = plugin.call("initialize", {"protocol": 1, "options": options})
                self.assertIn(words, reply["error"]["message"])
                self.assertEqual(plugin.process.wait(timeout=20), 1)


if __name__ == "__main__":
    unittest.main()
