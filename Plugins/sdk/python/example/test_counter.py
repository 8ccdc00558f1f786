import os
import unittest

import mobiusd_plugin as mp
from mobiusd_plugin_testing import Rejected, RunningPlugin

COUNTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "counter.py")


class CounterTests(unittest.TestCase):
    def setUp(self):
        self.counter = RunningPlugin([COUNTER])

    def tearDown(self):
        self.counter.stop()

    def test_starts_at_zero_and_keeps_a_recovered_count(self):
        self.assertEqual(self.counter.init(None), mp.Next(0))
        self.assertEqual(self.counter.init(3), mp.Next())

    def test_counts_up_and_down(self):
        self.assertEqual(self.counter.update(1, {"type": "up"}), mp.Next(2))
        self.assertEqual(self.counter.update(1, {"type": "down"}), mp.Next(0))

    def test_beeps_instead_of_going_below_zero(self):
        self.assertEqual(self.counter.update(0, {"type": "down"}), mp.Next(effects=[{"type": "beep"}]))

    def test_refuses_other_events(self):
        self.assertEqual(self.counter.update(0, {"type": "jump"}), Rejected("unknown event {'type': 'jump'}"))


if __name__ == "__main__":
    unittest.main()
