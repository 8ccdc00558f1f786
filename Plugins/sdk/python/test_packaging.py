"""The SDK installs with pip from this folder, and the documented example's tests pass against the installed copy."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
# Debian's interpreter when there is one: its site packages hold the python3-setuptools and python3-wheel that
# `make deps` installs, which pip builds with here, offline (--no-build-isolation --no-index).
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


class PackagingTests(unittest.TestCase):
    def test_pip_install_from_the_folder_then_the_example_tests_pass(self):
        with tempfile.TemporaryDirectory() as scratch:
            # A copy, because setuptools writes build/ and an .egg-info into the folder it builds.
            source = os.path.join(scratch, "source")
            shutil.copytree(HERE, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
            venv = os.path.join(scratch, "venv")
            subprocess.run([PYTHON, "-m", "venv", "--system-site-packages", venv], check=True)
            python = os.path.join(venv, "bin", "python")
            env = {"PATH": os.path.join(venv, "bin") + os.pathsep + os.environ["PATH"], "HOME": scratch}
            install = subprocess.run(
                [python, "-m", "pip", "install", "--no-cache-dir", "--no-build-isolation", "--no-index", "--quiet",
                 source], capture_output=True, text=True, env=env, cwd=scratch)
            self.assertEqual(install.returncode, 0, install.stdout + install.stderr)

            where = subprocess.run(
                [python, "-c", "import mobiusd_plugin, mobiusd_plugin_testing; print(mobiusd_plugin.__file__)"],
                capture_output=True, text=True, env=env, cwd=scratch)
            self.assertEqual(where.returncode, 0, where.stderr)
            self.assertTrue(where.stdout.startswith(venv + "/"), where.stdout)

            # The example's plugin finds python3 on PATH (the venv's) and the SDK in it; nothing on PYTHONPATH.
            example = subprocess.run(
                [python, "-m", "unittest", "discover", "-s", os.path.join(source, "example")],
                capture_output=True, text=True, env=env, cwd=scratch)
            self.assertEqual(example.returncode, 0, example.stderr)
            self.assertIn("OK", example.stderr)


if __name__ == "__main__":
    unittest.main()
