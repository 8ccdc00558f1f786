"""The thermostat's update plugin over real pipes, one event at a time and batched."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Plugins", "sdk", "python"))
from mobiusd_plugin_testing import PluginProcess  # noqa: E402

START = {"target": 20, "celsius": None, "heating": False}


class ThermostatUpdateTests(unittest.TestCase):
    def setUp(self):
        self.plugin = PluginProcess([os.path.join(HERE, "update.py")], app="thermostat")
        result = self.plugin.initialize()
        self.assertEqual((result["update"], result["batch"], result["effects"]), (True, True, []))

    def tearDown(self):
        self.plugin.kill()

    def update(self, model, event):
        return self.plugin.call("update", {"model": model, "event": event})

    def test_a_cold_reading_turns_the_heating_on_and_a_warm_one_off(self):
        on = self.update(START, {"type": "reading", "celsius": 18.5})["result"]
        self.assertEqual(on["model"], {"target": 20, "celsius": 18.5, "heating": True})
        self.assertEqual(on["effects"], [{"type": "file.write", "path": "thermostat-heating", "value": "on"},
                                         {"type": "syslog", "priority": "notice", "message": "heating on"}])
        same = self.update(on["model"], {"type": "reading", "celsius": 19})["result"]
        self.assertEqual(same, {"model": {"target": 20, "celsius": 19, "heating": True}})
        off = self.update(same["model"], {"type": "setTarget", "celsius": 18})["result"]
        self.assertEqual((off["model"]["heating"], off["effects"][0]["value"]), (False, "off"))

    def test_bad_events_are_rejected(self):
        for event in ({"type": "reading"}, {"type": "reading", "celsius": "warm"}, {"type": "reading", "celsius": True},
                      {"type": "explode"}, "reading", None, [1]):
            self.assertIn("events are", self.update(START, event)["error"]["message"], event)

    def test_init_keeps_the_model(self):
        self.assertEqual(self.plugin.call("init", {"model": START})["result"], {})

    def test_a_batch_with_a_rejected_event(self):
        result = self.plugin.call("updateBatch", {"model": START, "events": [
            {"type": "reading", "celsius": 15}, {"type": "bogus"}, {"type": "setTarget", "celsius": 10}]})["result"]
        self.assertEqual(result["model"], {"target": 10, "celsius": 15, "heating": False})
        self.assertEqual([sorted(r) for r in result["results"]], [["effects"], ["error"], ["effects"]])


if __name__ == "__main__":
    unittest.main()
