#!/usr/bin/python3
"""Stand-ins for logind and UPower on a private bus, with the same names, paths, interfaces and signatures, for
power-policy's integration test (and for trying the example without a laptop).

Usage: standins.py ADDRESS
Prints "ready" once both names are owned. It is driven by method calls on /org/mobiusd/StandIn, interface
org.mobiusd.StandIn (sent to either name), for example with dbus-send --bus=ADDRESS --print-reply
--dest=org.freedesktop.UPower /org/mobiusd/StandIn org.mobiusd.StandIn.Battery boolean:true double:15:
  Battery(b on_battery, d percent)  set UPower's OnBattery and the display device's Percentage, emitting
                                    PropertiesChanged for each
  Sleep(b starting)                 emit logind's PrepareForSleep(b)
  Suspends() -> u                   how many times logind's Suspend(b) was called (each is answered)
Needs python3-dbus and python3-gi (Debian), run with /usr/bin/python3.
"""
import sys

import dbus
import dbus.lowlevel
import dbus.mainloop.glib
from gi.repository import GLib

UPOWER = "org.freedesktop.UPower"
DEVICE_PATH = "/org/freedesktop/UPower/devices/DisplayDevice"
LOGIND = "org.freedesktop.login1"
PROPERTIES = "org.freedesktop.DBus.Properties"

state = {"OnBattery": False, "Percentage": 80.0, "suspends": 0}


def properties(path):
    if path == "/org/freedesktop/UPower":
        return dbus.Dictionary({"OnBattery": dbus.Boolean(state["OnBattery"]),
                                "DaemonVersion": "stand-in"}, signature="sv")
    return dbus.Dictionary({"Percentage": dbus.Double(state["Percentage"]), "Type": dbus.UInt32(2)},
                           signature="sv")


def handle(connection, message):
    if not isinstance(message, dbus.lowlevel.MethodCallMessage):
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
    reply = dbus.lowlevel.MethodReturnMessage(message)
    if message.get_interface() == PROPERTIES and message.get_member() == "GetAll":
        reply.append(properties(message.get_path()), signature="a{sv}")
    elif message.get_member() == "Suspend" and message.get_path() == "/org/freedesktop/login1":
        state["suspends"] += 1
    elif message.get_path() == "/org/mobiusd/StandIn":
        args = message.get_args_list()
        if message.get_member() == "Battery":
            state["OnBattery"], state["Percentage"] = bool(args[0]), float(args[1])
            changed(connection)
        elif message.get_member() == "Sleep":
            signal(connection, "/org/freedesktop/login1", LOGIND + ".Manager", "PrepareForSleep", "b", bool(args[0]))
        elif message.get_member() == "Suspends":
            reply.append(dbus.UInt32(state["suspends"]), signature="u")
        else:
            return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
    else:
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
    connection.send_message(reply)
    return dbus.lowlevel.HANDLER_RESULT_HANDLED


def signal(bus, path, interface, member, signature, *args):
    message = dbus.lowlevel.SignalMessage(path, interface, member)
    message.append(*args, signature=signature)
    bus.send_message(message)


def changed(bus):
    signal(bus, "/org/freedesktop/UPower", PROPERTIES, "PropertiesChanged", "sa{sv}as", UPOWER,
           dbus.Dictionary({"OnBattery": dbus.Boolean(state["OnBattery"])}, signature="sv"), [])
    signal(bus, DEVICE_PATH, PROPERTIES, "PropertiesChanged", "sa{sv}as", UPOWER + ".Device",
           dbus.Dictionary({"Percentage": dbus.Double(state["Percentage"])}, signature="sv"), [])


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(sys.argv[1])
    bus.add_message_filter(handle)
    bus.request_name(UPOWER)
    bus.request_name(LOGIND)
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
