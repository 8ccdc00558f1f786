import Glibc
import MobiusJSON
import Testing

/// docs/protocol.md 1.6: peer credentials decide permissions, and connection limits answer `Overloaded`.
///
/// Another user is played by `setpriv --reuid=65534` (nobody) running socat, the documented client.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct DaemonAccessTests {
    static let increment = #"{"type":"increment"}"#
    static let nobody: UInt32 = 65534

    /// Runs socat as nobody against `daemon`, feeding `lines`, and returns its output lines.
    static func asNobody(_ daemon: DaemonProcess, _ lines: [String]) throws -> [DaemonReply] {
        for tool in ["setpriv", "socat"] {
            guard DaemonSpawn.which(tool) != nil else {
                throw DaemonTestError("\(tool) is not installed (run `make deps`); the access tests need it")
            }
        }
        let input = Array(lines.map { $0 + "\n" }.joined().utf8)
        let run = try DaemonToolRun.run(
            "setpriv",
            [
                "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "socat", "-t", "5", "-",
                "UNIX-CONNECT:\(daemon.socketPath)",
            ], stdin: input)
        guard run.exit == .exited(0) else {
            throw DaemonTestError("socat as nobody: \(run.exit); stderr: \(run.stderr)")
        }
        return try run.stdoutLines.map { try DaemonReply(line: $0) }
    }

    /// A config with a world-connectable socket, plus `extra` members.
    static func config(_ extra: String = "") -> String {
        #"{"update":{"builtin":"counter"},"socket":{"mode":"0666"}"# + (extra.isEmpty ? "" : ",\(extra)") + "}"
    }

    @Test func testsRunAsRootSoAnotherUserExists() {
        // The access tests below depend on it; say so plainly instead of failing obscurely.
        #expect(getuid() == 0, "the access tests need to run as root to act as nobody")
    }

    @Test func defaultAccessLetsOthersReadButNotWrite() throws {
        let daemon = try DaemonProcess.start(config: Self.config())
        let replies = try Self.asNobody(daemon, [Self.increment, "send " + Self.increment, "model", "hello"])
        #expect(replies.count == 4, "\(replies)")
        guard replies.count == 4 else { return }
        #expect(replies[0].errorCode == "PermissionDenied" && replies[0].lineNumber == 1, "\(replies[0])")
        #expect(replies[1].errorCode == "PermissionDenied" && replies[1].lineNumber == 2, "\(replies[1])")
        #expect(replies[2].ok == true && replies[2].model == 0, "\(replies[2])")
        #expect(replies[3].ok == true && replies[3]["protocol"] == 1, "\(replies[3])")
        // Root (the daemon's own uid) may write; nobody's events were not applied but were counted.
        let root = try daemon.connect()
        #expect(try root.request(Self.increment).seq == 1)
        let status = try root.request("status")
        #expect(status["events"]?["rejected"] == 2, "\(status)")
    }

    @Test func readLimitedToRootDeniesOthersEvenModel() throws {
        let daemon = try DaemonProcess.start(config: Self.config(#""access":{"read":["root"]}"#))
        let replies = try Self.asNobody(daemon, ["model", "subscribe", "status", Self.increment])
        #expect(replies.map(\.errorCode) == Array(repeating: "PermissionDenied", count: 4), "\(replies)")
        #expect(replies.map(\.lineNumber) == [1, 2, 3, 4], "\(replies)")
        #expect(try daemon.connect().request("model").ok == true, "root may still read")
    }

    @Test func writeForEveryoneLetsNobodySendEvents() throws {
        let daemon = try DaemonProcess.start(config: Self.config(#""access":{"write":["*"]}"#))
        let replies = try Self.asNobody(daemon, [Self.increment, Self.increment, "model"])
        #expect(
            replies.map(\.line) == [
                #"{"ok":true,"seq":1}"#, #"{"ok":true,"seq":2}"#, #"{"ok":true,"seq":2,"model":2}"#,
            ])
    }

    @Test(arguments: ["65534", "nobody", "@65534", "@nogroup"])
    func writeListNamingNobodyLetsItWrite(entry: String) throws {
        let daemon = try DaemonProcess.start(config: Self.config(#""access":{"write":["\#(entry)"]}"#))
        let replies = try Self.asNobody(daemon, [Self.increment])
        #expect(replies.first?.isAck == true, "\(replies)")
        // The list replaces the default: root is no longer a writer.
        let root = try daemon.connect().request(Self.increment)
        #expect(root.errorCode == "PermissionDenied", "\(root)")
    }

    // MARK: - Overloaded

    /// A connection the daemon has admitted (answers `ping`). DaemonProcess's start-up probe may still count
    /// against the limits for a moment after it closed; lingering connections can only cause extra refusals,
    /// never extra admissions, so retrying here keeps the refusal checks below exact.
    static func admittedClient(_ daemon: DaemonProcess) throws -> DaemonLineClient {
        var admitted: DaemonLineClient?
        try DaemonTraffic.eventually("a connection is admitted") {
            guard let client = try? daemon.connect(), (try? client.request("ping"))?.ok == true else { return false }
            admitted = client
            return true
        }
        return admitted!
    }

    @Test func connectionsPastMaxConnectionsPerUserGetOverloaded() throws {
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"counter"},"socket":{"maxConnections":3,"maxConnectionsPerUser":2}}"#)
        let first = try Self.admittedClient(daemon)
        let second = try Self.admittedClient(daemon)
        let third = try daemon.connect()
        let lines = try third.readUntilEndOfFile()
        #expect(lines.count == 1, "one Overloaded line, then EOF: \(lines)")
        let refusal = try DaemonReply(line: lines.first ?? "")
        #expect(refusal.ok == false && refusal.errorCode == "Overloaded", "\(refusal)")
        #expect(refusal["line"] == nil, "an error not tied to a request line has no line: \(refusal)")
        #expect(refusal.errorMessage?.contains("maxConnectionsPerUser") == true, "\(refusal)")
        // The admitted connections are unaffected, and a slot frees when one closes.
        #expect(try first.request(Self.increment).seq == 1)
        second.close()
        _ = try Self.admittedClient(daemon)
    }

    @Test func connectionsPastMaxConnectionsGetOverloaded() throws {
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"counter"},"socket":{"maxConnections":2,"maxConnectionsPerUser":10}}"#)
        let first = try Self.admittedClient(daemon)
        let second = try Self.admittedClient(daemon)
        let third = try daemon.connect()
        let lines = try third.readUntilEndOfFile()
        #expect(lines.count == 1, "\(lines)")
        let refusal = try DaemonReply(line: lines.first ?? "")
        #expect(refusal.errorCode == "Overloaded" && refusal["line"] == nil, "\(refusal)")
        #expect(refusal.errorMessage?.contains("maxConnections") == true, "\(refusal)")
        // A refused client's request is never read: the model stays 0.
        #expect(try first.request("model").model == 0)
        withExtendedLifetime(second) {}
    }

    @Test func maxConnectionsCountsEveryUser() throws {
        // Two root connections fill maxConnections 2: nobody, with no connection of its own, is still refused.
        let daemon = try DaemonProcess.start(
            config:
                #"{"update":{"builtin":"counter"},"socket":{"mode":"0666","maxConnections":2,"maxConnectionsPerUser":5}}"#
        )
        let first = try Self.admittedClient(daemon)
        let second = try Self.admittedClient(daemon)
        // socat sends nothing (a refused client could not write anyway) and prints what the daemon says.
        let replies = try Self.asNobody(daemon, [])
        #expect(replies.count == 1 && replies.first?.errorCode == "Overloaded", "\(replies)")
        // Both root connections must stay open until here.
        withExtendedLifetime((first, second)) {}
    }
}
