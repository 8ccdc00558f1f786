#!/usr/bin/python3
"""A D-Bus peer for mobiusd's integration tests, on a private bus given by its address.

Usage: dbus-peer.py COMMAND ADDRESS [ARG]
  all-types      emit org.mobiusd.Test.AllTypes with one argument of every D-Bus type
  emit MEMBER S  emit org.mobiusd.Test.MEMBER with one string argument S
  flood N        emit N signals org.mobiusd.Test.Flood(u) as fast as the bus takes them
  flood-then-wait N   print "ready", then flood N
  paced N RATE   emit N signals org.mobiusd.Test.Flood(u), RATE per second, each flushed
  huge N         emit org.mobiusd.Test.Huge with a byte array of N bytes
  wide N         emit org.mobiusd.Test.Wide with an array of N strings
  deep N         emit org.mobiusd.Test.Deep with a variant nested N deep
  invalid-utf8   speak the wire protocol by hand and emit org.mobiusd.Test.Ping(s) with a string that is not
                 UTF-8; prints what the bus did ("disconnected" when it dropped this peer)
  serve          own org.mobiusd.TestService and answer calls on /org/mobiusd/Test: Echo returns its arguments,
                 Fail returns an error, Hang never answers, Properties.GetAll returns a{sv}; prints "ready"
  listen [IFACE] print each signal of IFACE (default org.mobiusd.Test) as a JSON line; prints "ready" once the
                 match is in
  own NAME       own NAME (queueing behind an owner) and wait; prints "ready" once asked
  send-many NAME PATH N EVENT
                 call org.mobiusd.App1.Send on NAME PATH N times without waiting between calls, EVENT with "{i}"
                 replaced by the call's index; prints "ready" once they are queued, then one JSON line
                 {"acks":[seq…],"errors":{"name":count}} when every call is answered
  send-big NAME PATH BYTES
                 call org.mobiusd.App1.Send on NAME PATH once with a JSON string of BYTES bytes; prints "t SEQ" or
                 the D-Bus error's name
  call-no-read NAME PATH N POINTER
                 call org.mobiusd.App1.Get(POINTER) on NAME PATH N times and never read a reply; prints "ready" once
                 they are written, then waits to be killed
Needs python3-dbus and python3-gi (Debian), run with /usr/bin/python3.
"""
import json
import os
import sys

import dbus
import dbus.lowlevel
import dbus.mainloop.glib

PATH = "/org/mobiusd/Test"
IFACE = "org.mobiusd.Test"


def connect(address, mainloop=False):
    if mainloop:
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    return dbus.bus.BusConnection(address)


def emit(bus, member, signature, *args):
    message = dbus.lowlevel.SignalMessage(PATH, IFACE, member)
    message.append(*args, signature=signature)
    bus.send_message(message)


def plain(value):
    """A dbus-python value as plain JSON-able Python."""
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.Array, dbus.Struct, list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(plain(key)): plain(item) for key, item in value.items()}
    if isinstance(value, (dbus.String, dbus.ObjectPath, dbus.Signature)):
        return str(value)
    if isinstance(value, dbus.Double):
        return float(value)
    if isinstance(value, int):
        return int(value)
    return str(value)


def all_types(bus):
    fd = os.open("/dev/null", os.O_RDONLY)
    emit(
        bus, "AllTypes", "ybnqiuxtdsoga{sv}(is)ayha{ia(s)}advab",
        dbus.Byte(255), True, dbus.Int16(-32768), dbus.UInt16(65535), dbus.Int32(-2147483648),
        dbus.UInt32(4294967295), dbus.Int64(-9223372036854775808), dbus.UInt64(18446744073709551615), 1.5,
        "h\u00e9llo \u2713", dbus.ObjectPath("/org/mobiusd/Obj"), dbus.Signature("a{sv}"),
        dbus.Dictionary({"Percentage": dbus.Double(42.5), "OnBattery": dbus.Boolean(True),
                         "Nested": dbus.Int32(7, variant_level=2)}, signature="sv"),
        dbus.Struct((1, "x"), signature="is"), dbus.ByteArray(b"\x00\x01\xff"), dbus.types.UnixFd(fd),
        dbus.Dictionary({1: [("a",)]}, signature="ia(s)"), dbus.Array([0.5, -1e300], signature="d"),
        dbus.String("in variant", variant_level=1), dbus.Array([True, False], signature="b"))


def marshal(kind, serial, fields, body):
    """A little-endian D-Bus message: header fields are (code, signature character, text)."""
    import struct
    array = bytearray()
    for code, signature, value in fields:
        while (16 + len(array)) % 8:
            array += b"\0"
        array += bytes([code, 1]) + signature.encode() + b"\0"
        text = value.encode()
        if signature == "g":
            array += bytes([len(text)]) + text + b"\0"
        else:
            while (16 + len(array)) % 4:
                array += b"\0"
            array += struct.pack("<I", len(text)) + text + b"\0"
    message = bytearray(struct.pack("<cBBBII", b"l", kind, 0, 1, len(body), serial))
    message += struct.pack("<I", len(array)) + array
    while len(message) % 8:
        message += b"\0"
    return bytes(message) + body


def invalid_utf8(address):
    import socket
    import struct
    path = address.split("path=", 1)[1].split(",")[0]
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(path)
    connection.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
    if not connection.recv(4096).startswith(b"OK"):
        sys.exit("authentication refused")
    connection.sendall(b"BEGIN\r\n")
    bus = "org.freedesktop.DBus"
    connection.sendall(marshal(1, 1, [(1, "o", "/org/freedesktop/DBus"), (2, "s", bus), (3, "s", "Hello"),
                                      (6, "s", bus)], b""))
    text = b"not \xff utf-8"
    connection.sendall(marshal(4, 2, [(1, "o", PATH), (2, "s", IFACE), (3, "s", "Ping"), (8, "g", "s")],
                               struct.pack("<I", len(text)) + text + b"\0"))
    connection.settimeout(5)
    try:
        while connection.recv(4096):
            pass
        print("disconnected", flush=True)
    except socket.timeout:
        print("still connected", flush=True)


def serve(bus):
    from gi.repository import GLib

    def handle(connection, message):
        if not isinstance(message, dbus.lowlevel.MethodCallMessage) or message.get_path() != PATH:
            return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
        member = message.get_member()
        if member == "Hang":
            return dbus.lowlevel.HANDLER_RESULT_HANDLED
        if member == "Fail":
            connection.send_message(dbus.lowlevel.ErrorMessage(message, "org.mobiusd.Error.Failed", "as asked"))
            return dbus.lowlevel.HANDLER_RESULT_HANDLED
        reply = dbus.lowlevel.MethodReturnMessage(message)
        if member == "Echo":
            reply.append(*message.get_args_list(), signature=message.get_signature())
        elif member == "GetAll":
            reply.append(dbus.Dictionary({"OnBattery": True, "Percentage": dbus.Double(55.0)}, signature="sv"),
                         signature="a{sv}")
        else:
            reply = dbus.lowlevel.ErrorMessage(message, "org.freedesktop.DBus.Error.UnknownMethod", member)
        connection.send_message(reply)
        return dbus.lowlevel.HANDLER_RESULT_HANDLED

    bus.add_message_filter(handle)
    bus.request_name("org.mobiusd.TestService")
    print("ready", flush=True)
    GLib.MainLoop().run()


def listen(bus, interface):
    from gi.repository import GLib

    def handle(connection, message):
        if isinstance(message, dbus.lowlevel.SignalMessage) and message.get_interface() == interface:
            print(json.dumps({"sender": message.get_sender(), "path": message.get_path(),
                              "destination": message.get_destination(),
                              "member": message.get_member(), "signature": message.get_signature(),
                              "args": plain(message.get_args_list())}), flush=True)
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED

    bus.add_message_filter(handle)
    bus.add_match_string("type='signal',interface='%s'" % interface)
    print("ready", flush=True)
    GLib.MainLoop().run()


def own(bus, name):
    from gi.repository import GLib

    bus.request_name(name)
    print("ready", flush=True)
    GLib.MainLoop().run()


def send_many(bus, name, path, count, event):
    from gi.repository import GLib

    loop = GLib.MainLoop()
    acks = []
    errors = {}
    left = [count]

    def answered():
        left[0] -= 1
        if left[0] == 0:
            loop.quit()

    def ack(seq):
        acks.append(int(seq))
        answered()

    def failed(error):
        errors[error.get_dbus_name()] = errors.get(error.get_dbus_name(), 0) + 1
        answered()

    target = bus.get_object(name, path, introspect=False)
    for index in range(count):
        target.Send(event.replace("{i}", str(index)), dbus_interface="org.mobiusd.App1", reply_handler=ack,
                    error_handler=failed, timeout=300)
    print("ready", flush=True)
    loop.run()
    print(json.dumps({"acks": acks, "errors": errors}), flush=True)


def send_big(bus, name, path, size):
    target = bus.get_object(name, path, introspect=False)
    try:
        seq = target.Send('"' + "x" * (size - 2) + '"', dbus_interface="org.mobiusd.App1", timeout=120)
        print("t %d" % int(seq), flush=True)
    except dbus.exceptions.DBusException as error:
        print(error.get_dbus_name(), flush=True)


def call_no_read(bus, name, path, count, pointer):
    import time

    for _ in range(count):
        message = dbus.lowlevel.MethodCallMessage(name, path, "org.mobiusd.App1", "Get")
        message.append(pointer, signature="s")
        bus.send_message(message)
    bus.flush()
    print("ready", flush=True)
    # Never dispatches: libdbus reads nothing more, so the replies pile up in the socket and then in the bus.
    time.sleep(3600)


def main():
    command, address = sys.argv[1], sys.argv[2]
    argument = sys.argv[3] if len(sys.argv) > 3 else None
    if command == "invalid-utf8":
        return invalid_utf8(address)
    bus = connect(address, mainloop=command in ("serve", "listen", "own", "send-many"))
    if command == "all-types":
        all_types(bus)
    elif command == "emit":
        emit(bus, argument, "s", sys.argv[4])
    elif command == "flood":
        for index in range(int(argument)):
            emit(bus, "Flood", "u", dbus.UInt32(index))
    elif command == "flood-then-wait":
        print("ready", flush=True)
        for index in range(int(argument)):
            emit(bus, "Flood", "u", dbus.UInt32(index))
    elif command == "paced":
        import time
        interval = 1.0 / float(sys.argv[4])
        start = time.monotonic()
        for index in range(int(argument)):
            emit(bus, "Flood", "u", dbus.UInt32(index))
            bus.flush()
            delay = start + (index + 1) * interval - time.monotonic()
            if delay > 0:
                time.sleep(delay)
    elif command == "huge":
        emit(bus, "Huge", "ay", dbus.ByteArray(b"\x07" * int(argument)))
    elif command == "wide":
        emit(bus, "Wide", "as", dbus.Array(["w"] * int(argument), signature="s"))
    elif command == "deep":
        emit(bus, "Deep", "v", dbus.Int32(1, variant_level=int(argument)))
    elif command == "serve":
        serve(bus)
    elif command == "listen":
        listen(bus, argument or IFACE)
    elif command == "own":
        own(bus, argument)
    elif command == "send-many":
        send_many(bus, argument, sys.argv[4], int(sys.argv[5]), sys.argv[6])
    elif command == "send-big":
        send_big(bus, argument, sys.argv[4], int(sys.argv[5]))
    elif command == "call-no-read":
        call_no_read(bus, argument, sys.argv[4], int(sys.argv[5]), sys.argv[6])
    else:
        sys.exit("unknown command " + command)
    bus.flush()
    bus.close()


if __name__ == "__main__":
    main()
