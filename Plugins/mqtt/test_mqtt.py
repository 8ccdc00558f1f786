"""mobiusd-mqtt against a real mosquitto on a free localhost port: publish effects and subscription events."""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "sdk", "python"))
from mobiusd_plugin_testing import PluginProcess  # noqa: E402

PLUGIN = [os.path.join(HERE, "mobiusd-mqtt")]
MOSQUITTO = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/local/sbin")
HAS_PAHO = subprocess.run(["/usr/bin/python3", "-c", "import paho.mqtt.client"], capture_output=True).returncode == 0


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@unittest.skipUnless(MOSQUITTO and HAS_PAHO, "needs mosquitto and python3-paho-mqtt (make deps installs both)")
class MqttTests(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.port = free_port()
        config = os.path.join(self.scratch.name, "mosquitto.conf")
        with open(config, "w") as f:
            f.write("listener %d 127.0.0.1\nallow_anonymous true\n" % self.port)
        self.broker = subprocess.Popen([MOSQUITTO, "-c", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20  # hang guard: wait for the listener
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                self.assertLess(time.monotonic(), deadline, "mosquitto did not start")
                time.sleep(0.05)

    def tearDown(self):
        self.broker.terminate()
        self.broker.wait()
        self.scratch.cleanup()

    def start(self, **options):
        plugin = PluginProcess(PLUGIN, name="bus")
        options.setdefault("port", self.port)
        self.addCleanup(plugin.kill)
        result = plugin.initialize(options=dict(host="127.0.0.1", **options))
        self.assertEqual(result["effects"], ["mqtt.publish"])
        return plugin

    @staticmethod
    def publish(plugin, **effect):
        """Publishes and returns the reply; progress notifications (qos 1/2 waits) may come before it."""
        before, reply = plugin.reply(plugin.effect(dict({"type": "mqtt.publish"}, **effect)))
        assert all(m.get("method") == "progress" for m in before), before
        return reply

    def wait_subscribed(self, listener, publisher, topic):
        """Publishes probes until the listener's subscription delivers one (subscribing is asynchronous)."""
        while True:
            self.assertIn("result", self.publish(publisher, topic=topic, payload="probe", qos=1))
            try:
                message = listener.read(timeout=0.5)
            except AssertionError:
                continue
            if message["params"]["event"]["payload"] == "probe":
                return

    def test_subscriptions_become_events_and_effects_publish(self):
        listener = self.start(subscribe=[{"topic": "home/+/temp", "qos": 2}, "probe"], json=True,
                              event={"type": "reading", "source": "mqtt"})
        publisher = self.start()
        self.wait_subscribed(listener, publisher, "probe")
        for payload, qos in (({"celsius": 21.5}, 0), ("not json", 1), ("22", 2)):
            reply = self.publish(publisher, topic="home/kitchen/temp", payload=payload, qos=qos)
            self.assertEqual(reply["result"], {})
            event = listener.read()["params"]["event"]
            expected = payload if payload != "22" else 22  # json: true parses payloads that are JSON
            self.assertEqual(event, {"type": "reading", "source": "mqtt", "topic": "home/kitchen/temp",
                                     "qos": qos, "retain": False, "payload": expected})
        self.publish(publisher, topic="elsewhere", payload="x")
        self.publish(publisher, topic="probe", payload="last")
        self.assertEqual(listener.read()["params"]["event"]["payload"], "last")  # nothing from "elsewhere"

    def test_bad_publishes_fail_the_effect(self):
        plugin = self.start()
        for effect, words in [({"topic": "a/#"}, "wildcards"), ({"topic": ""}, "topic"), ({}, "topic"),
                              ({"topic": "a", "qos": 3}, "qos")]:
            reply = self.publish(plugin, **effect)
            self.assertIn(words, reply["error"]["message"])

    def test_bad_options_refuse_the_start(self):
        for options, words in [({"port": "x"}, "options.port"), ({"subscribe": [5]}, "options.subscribe"),
                               ({"tls": True}, "unknown option(s): tls")]:
            with PluginProcess(PLUGIN) as plugin:
                reply = plugin.call("initialize", {"protocol": 1, "options": options})
                self.assertIn(words, reply["error"]["message"])
                self.assertEqual(plugin.process.wait(timeout=20), 1)


if __name__ == "__main__":
    unittest.main()
