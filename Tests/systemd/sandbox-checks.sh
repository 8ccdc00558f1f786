# Sourced by real-systemd.sh once the container's systemd is up: the shipped instance unit, its sandbox unchanged,
# runs plugins and D-Bus sources and decides access by the clients' real users; and the drop-in docs/systemd.md gives
# for plugin `user`/`group` ("The sandbox") runs a plugin as that user and can still end it. Uses the script's
# in_container, run, check and $root. docs/security.md cites what these checks show.

fixtures=Tests/Fixtures/Plugins
mkdir -p "$root/usr/local/lib/mobiusd-test"
install -m 0755 "$fixtures/behave.py" "$fixtures/probe.py" "$root/usr/local/lib/mobiusd-test/" ||
    fail "cannot install the fixture plugins"

# An app whose update is behave.py (events {"type":"effect","effect":E} emit E; the model keeps other events in
# "seen"), with probe.py handling the effect "probe" and a D-Bus source on the container's system bus.
# $1: the probe's extra config keys (a JSON members list, may be empty).
sandbox_config() {
    cat <<EOF
{
  "app": "$2",
  "update": { "plugin": "app" },
  "plugins": {
    "app": { "exec": ["/usr/local/lib/mobiusd-test/behave.py"], "options": { "mode": "update" } },
    "probe": { "exec": ["/usr/local/lib/mobiusd-test/probe.py"]$1 }
  },
  "dbus": [
    { "bus": "system", "type": "ping", "match": { "interface": "org.mobiusd.Test", "member": "Ping" } },
    { "bus": "system", "type": "owned",
      "match": { "sender": "org.mobiusd.TestService", "interface": "org.mobiusd.Test", "member": "Owned" } }
  ],
  "access": { "read": ["root", "daemon"], "write": ["root", "daemon"] }
}
EOF
}

# The model of app $1, as root, through socat.
model_of() {
    in_container socat -t 2 - "UNIX-CONNECT:/run/mobiusd/$1.sock" <<<model 2>&1
}

# The events of type $2 in app $1's model ("seen"): the first one as a JSON object (nothing when there is none) when
# $3 is `first`, else the list of their member $3.
events_of() {
    /usr/bin/python3 -c '
import json, sys
try:
    seen = json.loads(sys.argv[1]).get("model", {}).get("seen", [])
except ValueError:
    seen = []
events = [e for e in seen if e.get("type") == sys.argv[2]]
if sys.argv[3] == "first":
    print(json.dumps(events[0], sort_keys=True) if events else "")
else:
    print(json.dumps([e.get(sys.argv[3]) for e in events]))' "$(model_of "$1")" "$2" "$3"
}

# Waits up to 10 s for an event of type $2 in app $1's model; sets $event.
wait_for_event() {
    event=""
    for _ in $(seq 1 100); do
        event=$(events_of "$1" "$2" first)
        [ -n "$event" ] && return 0
        sleep 0.1
    done
    return 1
}

# A field of $event (a JSON object), as JSON.
field() {
    /usr/bin/python3 -c 'import json, sys; print(json.dumps(json.loads(sys.argv[1]).get(sys.argv[2])))' "$event" "$1"
}

# (c) The shipped unit as it is: a plugin runs, as the service's user, with only its pipes; a signal on the system
# bus becomes an event; the access lists see the clients' own uids (no PrivateUsers=).
sandbox_config "" sandbox >"$root/etc/mobiusd/sandbox.json"
# A service that owns a well-known name on the system bus, as the bus's policy lets only root here.
mkdir -p "$root/etc/dbus-1/system.d"
cat >"$root/etc/dbus-1/system.d/org.mobiusd.TestService.conf" <<'POLICY'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><policy user="root"><allow own="org.mobiusd.TestService"/></policy></busconfig>
POLICY
run systemctl start dbus.socket
check "the container's system bus is up (systemctl start dbus.socket: $out)" [ $rc = 0 ]
run systemctl reload-or-restart dbus.service
run systemctl start mobiusd@sandbox.socket mobiusd@sandbox.service
check "mobiusd@sandbox starts under the full sandbox (systemctl start: $out)" [ $rc = 0 ]
run stat -c '%a %U %G' /run/mobiusd/sandbox.sock
check "the socket file is 0666 root root, as mobiusd@.socket says ($out)" [ "$out" = "666 root root" ]

in_container socat -t 2 - UNIX-CONNECT:/run/mobiusd/sandbox.sock \
    <<<'{"type":"effect","effect":{"type":"probe"}}' >/dev/null 2>&1
check "the probe plugin answers its effect under the sandbox" wait_for_event sandbox probe
main_pid=$(in_container systemctl show -P MainPID mobiusd@sandbox.service)
service_uid=$(in_container awk '/^Uid:/ { print $2 }' "/proc/$main_pid/status" 2>/dev/null)
probe_uid=$(field uid)
check "the plugin runs as the service's user mobiusd, uid $service_uid ($probe_uid)" \
    [ "$probe_uid" = "[\"$service_uid\", \"$service_uid\", \"$service_uid\", \"$service_uid\"]" ]
check "the plugin has only descriptors 0-2 ($(field fds))" [ "$(field fds)" = "[0, 1, 2]" ]

# Any user on the bus may send a signal: a source without `sender` takes nobody's.
run setpriv --reuid=65534 --regid=65534 --clear-groups \
    dbus-send --system --type=signal /org/mobiusd/Test org.mobiusd.Test.Ping string:hello
check "dbus-send of a signal, as nobody, on the container's system bus (rc $rc: $out)" [ $rc = 0 ]
check "the signal becomes an event in the sandboxed daemon" wait_for_event sandbox ping
check "the event carries the signal's argument ($(field args))" [ "$(field args)" = '["hello"]' ]
# A source whose `sender` is a well-known name takes only the name's owner's signals: nobody's copy, sent while the
# service owns the name, is ignored.
in_container /usr/bin/python3 -c '
import time, dbus
bus = dbus.SystemBus()
assert bus.request_name("org.mobiusd.TestService") == dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER
time.sleep(1.5)
signal = dbus.lowlevel.SignalMessage("/org/mobiusd/Test", "org.mobiusd.Test", "Owned")
signal.append("from-owner")
bus.send_message(signal)
bus.flush()
time.sleep(1)' &
service=$!
sleep 0.8
run setpriv --reuid=65534 --regid=65534 --clear-groups \
    dbus-send --system --type=signal /org/mobiusd/Test org.mobiusd.Test.Owned string:from-nobody
check "nobody sends a signal that looks like the service's (rc $rc: $out)" [ $rc = 0 ]
wait "$service"
check "the service owned its name and sent its signal (rc $?)" [ $? = 0 ]
check "the owner's signal becomes an event" wait_for_event sandbox owned
owned=$(events_of sandbox owned args)
check "nobody's copy does not ($owned)" [ "$owned" = '[["from-owner"]]' ]

# The daemon sees a client's own uid: `daemon` (uid 1), a writer by name, may send events; nobody may not read.
run setpriv --reuid=1 --regid=1 --clear-groups socat -t 2 - UNIX-CONNECT:/run/mobiusd/sandbox.sock \
    <<<'{"type":"from-daemon"}'
check "a writer named in access.write by user name is let in ($out)" grep -q '"ok":true' <<<"$out"
run setpriv --reuid=65534 --regid=65534 --clear-groups socat -t 2 - UNIX-CONNECT:/run/mobiusd/sandbox.sock \
    <<<model
check "a user in neither list is refused ($out)" grep -q PermissionDenied <<<"$out"

# (d) docs/systemd.md's drop-in for plugin `user`/`group`: the plugin runs as nobody with nobody's groups, and the
# daemon can still end it (a restart by hand ends the running plugin first) and stop within a few seconds.
sandbox_config ', "user": "nobody"' asuser >"$root/etc/mobiusd/asuser.json"
# The drop-in exactly as docs/systemd.md shows it: the ini block that starts with its path.
dropin="$root/etc/systemd/system/mobiusd@asuser.service.d/accounts.conf"
mkdir -p "$(dirname "$dropin")"
awk '/^# \/etc\/systemd\/system\/mobiusd@NAME.service.d\/accounts.conf$/ { on = 1; next } on && /^```/ { exit } on' \
    docs/systemd.md >"$dropin"
check "docs/systemd.md has the plugin-account drop-in" grep -q '^CapabilityBoundingSet=' "$dropin"
run systemctl daemon-reload
run systemctl start mobiusd@asuser.socket mobiusd@asuser.service
check "mobiusd@asuser starts with the plugin-account drop-in (systemctl start: $out)" [ $rc = 0 ]
in_container socat -t 2 - UNIX-CONNECT:/run/mobiusd/asuser.sock \
    <<<'{"type":"effect","effect":{"type":"probe"}}' >/dev/null 2>&1
check "the probe plugin answers under the drop-in" wait_for_event asuser probe
check "the plugin runs as nobody ($(field uid) $(field gid))" \
    [ "$(field uid) $(field gid)" = '["65534", "65534", "65534", "65534"] ["65534", "65534", "65534", "65534"]' ]
check "with nobody's groups only ($(field groups))" [ "$(field groups)" = '["65534"]' ]
probe_pid() {
    in_container socat -t 2 - UNIX-CONNECT:/run/mobiusd/asuser.sock <<<status 2>/dev/null |
        /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["plugins"]["probe"]["pid"])'
}
old_pid=$(probe_pid)
run mobiusctl --human --socket /run/mobiusd/asuser.sock plugin restart probe
check "the plugin running as nobody is restarted by hand (rc $rc: $out)" [ $rc = 0 ]
new_pid=""
for _ in $(seq 1 50); do
    new_pid=$(probe_pid)
    [ -n "$new_pid" ] && [ "$new_pid" != None ] && [ "$new_pid" != "$old_pid" ] && break
    sleep 0.1
done
check "a new plugin process runs ($old_pid -> $new_pid)" [ -n "$new_pid" -a "$new_pid" != "$old_pid" ]
check "the old one, another user's, was ended" eval '! in_container test -e "/proc/$old_pid"'
stop_started=$(date +%s%N)
run systemctl stop mobiusd@asuser.service
stop_ms=$(elapsed_ms "$stop_started")
check "systemctl stop ends it cleanly in $stop_ms ms (rc $rc: $out)" [ $rc = 0 -a "$stop_ms" -lt 10000 ]
run journalctl -u mobiusd@asuser.service --no-pager -o cat
check "the daemon logged no failure to signal its plugin" eval '! grep -qi "not permitted" <<<"$out"'
