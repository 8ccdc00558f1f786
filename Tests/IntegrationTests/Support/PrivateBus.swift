import Foundation
import MobiusJSON
import MobiusSystem
import MobiusTestSupport

/// A dbus-daemon of the test's own at a fixed `unix:path=` address in a scratch directory (a private bus
/// per test, never the host's), which the test can kill and start again at the same address, and D-Bus peers run against it
/// (Tests/Fixtures/DBusPeer/dbus-peer.py, python3-dbus).
final class PrivateBus {
    let scratch = DaemonScratch()
    /// The address without the bus's guid, so a restarted bus at the same path is the same address.
    let address: String
    private(set) var pid: Int32 = 0
    private var peers: [ChildProcess] = []

    static let python = "/usr/bin/python3"
    /// The package's root directory.
    static let packageRoot: String = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/"
            && !FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path)
        {
            directory.deleteLastPathComponent()
        }
        return directory.path
    }()
    static let peerScript = packageRoot + "/Tests/Fixtures/DBusPeer/dbus-peer.py"

    /// Starts a bus (unless `start` is false: then the address is unreachable until `start()`).
    init(start: Bool = true) throws {
        address = "unix:path=\(scratch.file("bus"))"
        if start { try self.start() }
    }

    /// `dbus-daemon --session --fork --print-pid=1 --nopidfile --address=…`.
    func start() throws {
        let run = try DaemonToolRun.run(
            "dbus-daemon", ["--session", "--fork", "--print-pid=1", "--nopidfile", "--address=\(address)"])
        guard run.exit == .exited(0), let pid = Int32(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw DaemonTestError("dbus-daemon did not start (\(run.exit)): \(run.stderr)") }
        self.pid = pid
    }

    /// SIGKILL, and waits until the socket refuses connections (the bus is not the test's child, so it cannot be
    /// reaped here).
    func kill() throws {
        guard pid > 0 else { return }
        try? ChildProcess(processID: pid).send(.kill)
        pid = 0
        let deadline = ContinuousClock.now + .seconds(10)
        while (try? UnixSocket.connect(path: scratch.file("bus")))?.close() != nil {
            guard ContinuousClock.now < deadline else { throw DaemonTestError("the killed bus still accepts") }
            try? SystemClock.sleep(nanoseconds: 5_000_000)
        }
    }

    /// Runs `dbus-peer.py COMMAND ADDRESS ARGS…` to completion.
    @discardableResult
    func peer(_ command: String, _ arguments: String...) throws -> DaemonToolRun {
        let run = try DaemonToolRun.run(
            Self.python, [Self.peerScript, command, address] + arguments, timeout: .seconds(60))
        guard run.exit == .exited(0) else {
            throw DaemonTestError("dbus-peer.py \(command) failed (\(run.exit)): \(run.stderr)")
        }
        return run
    }

    /// Starts a long-running peer (`serve`, `listen`) and waits for its "ready" line; it is killed with the bus.
    func startPeer(_ command: String, name: String, argument: String? = nil) throws -> (ChildProcess, String) {
        try startScript(Self.peerScript, [command, address] + (argument.map { [$0] } ?? []), name: name)
    }

    /// Starts a python3 script with `arguments` and waits for its "ready" line; it is killed with the bus.
    func startScript(_ script: String, _ arguments: [String], name: String) throws -> (ChildProcess, String) {
        let command = script.split(separator: "/").last.map(String.init) ?? script
        let output = scratch.file("\(name).out")
        let child = try DaemonSpawn.start(
            Self.python, [script] + arguments, stdoutPath: output, stderrPath: scratch.file("\(name).err"))
        peers.append(child)
        let deadline = ContinuousClock.now + .seconds(20)
        while !scratch.read("\(name).out").hasPrefix("ready") {
            if let ended = try? child.termination() {
                throw DaemonTestError("\(command) exited (\(ended)): \(scratch.read("\(name).err"))")
            }
            guard ContinuousClock.now < deadline else { throw DaemonTestError("\(command) not ready") }
            try? SystemClock.sleep(nanoseconds: 10_000_000)
        }
        return (child, output)
    }

    /// Ends a peer started with `startPeer` (once: a reaped child cannot be waited for again).
    func stopPeer(_ child: ChildProcess) {
        peers.removeAll { $0.processID == child.processID }
        try? child.send(.kill)
        _ = child.termination(within: .seconds(5))
    }

    deinit {
        for child in peers { stopPeer(child) }
        try? kill()
    }
}

/// Polls `condition` until it holds or `timeout` (times `TestTime.scale`) passes (for state that other processes
/// change).
func eventually(
    _ what: String, timeout: Duration = .seconds(20), _ condition: () throws -> Bool
) throws {
    let deadline = ContinuousClock.now + TestTime.scaled(timeout)
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw DaemonTestError("timed out waiting: \(what)") }
        try? SystemClock.sleep(nanoseconds: 10_000_000)
    }
}

extension DaemonLineClient {
    /// The model of the recorder fixture (`{"count":N,"events":[…]}`).
    func recorderModel() throws -> JSONValue {
        guard let model = try request("model").model else { throw DaemonTestError("no model in the reply") }
        return model
    }

    /// `status`'s `dbus` member for one source.
    func dbusStatus(_ source: String) throws -> JSONValue {
        guard let status = try request("status")["dbus"]?[source] else {
            throw DaemonTestError("status has no dbus source \(source)")
        }
        return status
    }
}
