import Foundation
import Glibc
import MobiusJSON
import MobiusSystem
import Testing

/// The shipped system bus policy, systemd/org.mobiusd.app.conf (docs/dbus.md, "Who may call Send"), on a private bus
/// with the system bus's default-deny policy: who may own the names, who may read, who may `Send`.
///
/// The test cannot create the policy's user and group (that would touch /etc), so its copy names root (the test's
/// user, which runs the daemon) for `mobiusd` and `nogroup` for `mobiusd-send`. Other users are played with
/// `setpriv`: nobody (whose group is nogroup) and daemon (uid 1, in no group the policy names).
@Suite(
    "D-Bus expose: the system bus policy", .serialized, .timeLimit(.scaled(minutes: 2)),
    .enabled(if: getuid() == 0, "needs root to call as other users"))
struct DBusExposePolicyTests {
    static let policy = PrivateBus.packageRoot + "/systemd/org.mobiusd.app.conf"

    /// A dbus-daemon whose default policy is the system bus's (Debian's system.conf: nobody owns names or calls
    /// methods unless a policy says so), including `policy`.
    final class SystemLikeBus {
        let scratch = DaemonScratch()
        let address: String
        private var pid: Int32 = 0

        init(including policy: String) throws {
            address = "unix:path=\(scratch.file("bus"))"
            let config = scratch.write(
                "bus.conf",
                """
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <type>system</type>
                  <listen>\(address)</listen>
                  <auth>EXTERNAL</auth>
                  <policy context="default">
                    <allow user="*"/>
                    <deny own="*"/>
                    <deny send_type="method_call"/>
                    <allow send_type="signal"/>
                    <allow send_requested_reply="true" send_type="method_return"/>
                    <allow send_requested_reply="true" send_type="error"/>
                    <allow receive_type="method_call"/>
                    <allow receive_type="method_return"/>
                    <allow receive_type="error"/>
                    <allow receive_type="signal"/>
                    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
                    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
                  </policy>
                  <include>\(policy)</include>
                </busconfig>
                """)
            let run = try DaemonToolRun.run(
                "dbus-daemon", ["--config-file=\(config)", "--fork", "--print-pid=1", "--nopidfile"])
            guard run.exit == .exited(0), let pid = Int32(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            else { throw DaemonTestError("dbus-daemon did not start (\(run.exit)): \(run.stderr)") }
            self.pid = pid
        }

        deinit {
            if pid > 0 { try? ChildProcess(processID: pid).send(.kill) }
        }
    }

    /// `busctl` as `uid` (with its groups from the user database), or as root.
    static func busctl(_ bus: SystemLikeBus, as uid: UInt32? = nil, _ arguments: String...) throws -> DaemonToolRun {
        let command = ["busctl", "--address=\(bus.address)"] + arguments
        guard let uid else { return try DaemonToolRun.run(command[0], Array(command.dropFirst())) }
        return try DaemonToolRun.run("setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--init-groups"] + command)
    }

    static func exposed(on bus: SystemLikeBus, name: String, scratch: DaemonScratch) throws -> DaemonProcess {
        let config = scratch.write(
            "door.json",
            #"{"update":{"builtin":"store"},"model":{"locked":true},"expose":{"bus":"\#(bus.address)","#
                + #""name":"\#(name)","path":"/door","properties":{"Locked":{"path":"/locked","type":"b"}}}}"#)
        return try DaemonProcess(
            scratch: scratch, arguments: ["--ephemeral", "--config", config, "--socket", scratch.file("x.sock")],
            socketPath: scratch.file("x.sock"))
    }

    @Test("the shipped file loads as it is")
    func loads() throws {
        _ = try SystemLikeBus(including: Self.policy)
    }

    @Test("the owner's user owns names under org.mobiusd.app; anyone reads; root and the sending group Send")
    func policy() throws {
        let text = try String(contentsOfFile: Self.policy, encoding: .utf8)
        #expect(text.contains(#"user="mobiusd""#) && text.contains(#"group="mobiusd-send""#))
        let scratch = DaemonScratch()
        let copy = scratch.write(
            "policy.conf",
            text.replacingOccurrences(of: #"user="mobiusd""#, with: #"user="root""#)
                .replacingOccurrences(of: #"group="mobiusd-send""#, with: #"group="nogroup""#))
        let bus = try SystemLikeBus(including: copy)
        let name = "org.mobiusd.app.PolicyDoor"
        let daemon = try Self.exposed(on: bus, name: name, scratch: scratch)
        let client = try daemon.connect()
        try eventually("served") { try client.request("status")["expose"]?["state"] == "connected" }

        let send = [
            "call", name, "/door", "org.mobiusd.App1", "Send", "s", #"{"type":"set","path":"/locked","value":false}"#,
        ]
        func sendAs(_ uid: UInt32?) throws -> DaemonToolRun {
            guard let uid else {
                return try Self.busctl(bus, send[0], send[1], send[2], send[3], send[4], send[5], send[6])
            }
            return try Self.busctl(bus, as: uid, send[0], send[1], send[2], send[3], send[4], send[5], send[6])
        }
        #expect(try sendAs(nil).stdout == "t 1\n", "root may Send")
        let nobody = try sendAs(65534)
        #expect(nobody.stdout == "t 2\n", "a member of the sending group may Send: \(nobody.stderr)")
        let other = try sendAs(1)
        #expect(other.exit != .exited(0) && other.stderr.contains("Access denied"), "\(other.stdout)\(other.stderr)")
        #expect(try client.request("model").seq == 2, "the refused call never reached the daemon")

        let read = try Self.busctl(bus, as: 1, "get-property", name, "/door", "org.mobiusd.App1", "Locked", "Seq")
        #expect(read.stdout == "b false\nt 2\n", "anyone reads: \(read.stderr)")
        let get = try Self.busctl(bus, as: 1, "call", name, "/door", "org.mobiusd.App1", "Get", "s", "/locked")
        #expect(get.stdout == "s \"false\"\n", "\(get.stderr)")
        let introspect = try Self.busctl(bus, as: 1, "introspect", name, "/door")
        #expect(introspect.exit == .exited(0) && introspect.stdout.contains(".Send"), "\(introspect.stderr)")
        let ping = try Self.busctl(bus, as: 1, "call", name, "/door", "org.freedesktop.DBus.Peer", "Ping")
        #expect(ping.exit == .exited(0), "\(ping.stderr)")
        let set = try Self.busctl(
            bus, as: 1, "call", name, "/door", "org.freedesktop.DBus.Properties", "Set", "ssv", "org.mobiusd.App1",
            "Locked", "b", "true")
        #expect(set.stderr.contains("Access denied"), "Set is not even let through: \(set.stderr)")
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("a name outside the policy's prefix is refused: the exposure backs off and says why")
    func refusedName() throws {
        let scratch = DaemonScratch()
        let text = try String(contentsOfFile: Self.policy, encoding: .utf8)
        let copy = scratch.write(
            "policy.conf", text.replacingOccurrences(of: #"user="mobiusd""#, with: #"user="root""#))
        let bus = try SystemLikeBus(including: copy)
        let daemon = try Self.exposed(on: bus, name: "org.example.Outside", scratch: scratch)
        let client = try daemon.connect()
        try eventually("refused") {
            let status = try client.request("status")["expose"]
            return status?["state"] == "backoff"
                && status?["lastError"]?.stringValue?.contains("not allowed to own the service") == true
        }
        #expect(try client.request("ping").ok == true, "the daemon serves on")
        #expect(try daemon.terminate() == .exited(0))
    }
}
