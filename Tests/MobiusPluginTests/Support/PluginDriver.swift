import Foundation
import MobiusJSON
import MobiusSystem
import MobiusTestSupport

/// Drives a plugin process over real pipes as mobiusd does: the environment of docs/protocol.md 2.1, JSON-RPC lines on
/// stdin, stdout and stderr read by threads of their own (so a hung plugin fails the test instead of hanging it).
final class PluginDriver: @unchecked Sendable {
    // @unchecked: `messages`, `ended`, `stderrBytes` and `stderrEnded` are touched only inside `condition.withLock`; the other vars only by the
    // test's own thread.
    let child: ChildProcess
    private let input: FileDescriptor
    private var inputOpen = true
    private let condition = ThreadCondition()
    private var messages: [JSONValue] = []
    private var ended = false
    private var nextID: Int64 = 1
    private var exitStatus: ChildProcess.Termination? = nil
    private var stderrBytes: [UInt8] = []
    private var stderrEnded = false

    /// How long `read` waits before it fails: a hang guard, not an assertion about speed.
    static let hangGuard: UInt64 = TestTime.scaled(nanoseconds: 20_000_000_000)

    /// The fixture plugin built next to the test bundle.
    static var fixturePath: String { builtProgram("mobiusd-fixture-plugin") }

    /// A program `swift build` put next to the test bundle.
    static func builtProgram(_ name: String) -> String {
        let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().path + "/" + name
    }

    /// Starts `arguments` (the fixture by default) with the plugin environment plus `extra`; without
    /// `pluginEnvironment`, MOBIUSD_* are left out.
    init(
        _ arguments: [String] = [PluginDriver.fixturePath], extra: [String: String] = [:],
        pluginEnvironment: Bool = true
    ) throws {
        var environment: [String: String] = [:]
        for name in ["PATH", "HOME", "LANG", "LC_ALL", "TZ"] {
            if let value = SystemProcess.environment(name) { environment[name] = value }
        }
        if pluginEnvironment {
            environment["MOBIUSD_PLUGIN"] = "1"
            environment["MOBIUSD_PROTOCOL"] = "1"
            environment["MOBIUSD_PLUGIN_NAME"] = "fx"
            environment["MOBIUSD_APP"] = "test-app"
        }
        environment.merge(extra) { $1 }
        let process = try PipedProcess.spawn(
            program: arguments[0], arguments: arguments,
            environment: environment.map { "\($0.key)=\($0.value)" })
        child = ChildProcess(processID: process.processID)
        input = process.input
        process.pidFD.close()
        try SystemThread.spawn(name: "plugin-reader", stackSize: 1 << 20) { [self] in
            readLoop(process.output)
        }
        try SystemThread.spawn(name: "plugin-stderr", stackSize: 1 << 20) { [self] in
            stderrLoop(process.errorOutput)
        }
    }

    deinit {
        // Kill only a child not yet reaped: a reaped pid may already belong to another process.
        if exitStatus == nil, (try? child.termination()) == .some(nil) {
            try? child.send(.kill)
            _ = try? child.waitForExit()
        }
        if inputOpen { input.close() }
    }

    private func stderrLoop(_ errorOutput: FileDescriptor) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { raw -> Int in
                guard case .transferred(let count)? = try? errorOutput.read(into: raw) else { return 0 }
                return count
            }
            if count == 0 { break }
            condition.withLock { stderrBytes += chunk[0..<count] }
        }
        errorOutput.close()
        condition.withLock { stderrEnded = true }
        condition.broadcast()
    }

    private func readLoop(_ output: FileDescriptor) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { raw -> Int in
                guard case .transferred(let count)? = try? output.read(into: raw) else { return 0 }
                return count
            }
            if count == 0 { break }
            buffer += chunk[0..<count]
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                let message =
                    (try? JSONValue(parsing: line)) ?? ["notJSON": .string(String(decoding: line, as: UTF8.self))]
                condition.withLock { messages.append(message) }
                condition.broadcast()
            }
        }
        output.close()
        condition.withLock { ended = true }
        condition.broadcast()
    }

    // MARK: Sending

    func sendRaw(_ bytes: [UInt8]) throws {
        try input.writeAll(bytes)
    }

    func send(_ message: JSONValue) throws {
        try sendRaw(message.encoded() + [0x0A])
    }

    @discardableResult
    func request(_ method: String, _ params: JSONValue? = nil) throws -> JSONValue {
        let id = JSONValue.number(JSONNumber(nextID))
        nextID += 1
        var message: JSONObject = ["jsonrpc": "2.0", "id": id, "method": .string(method)]
        if let params { message["params"] = params }
        try send(.object(message))
        return id
    }

    func notify(_ method: String, _ params: JSONValue? = nil) throws {
        var message: JSONObject = ["jsonrpc": "2.0", "method": .string(method)]
        if let params { message["params"] = params }
        try send(.object(message))
    }

    func effect(_ effect: JSONValue) throws -> JSONValue {
        try request("effect", ["effect": effect])
    }

    /// Closes the plugin's stdin.
    func closeInput() {
        if inputOpen { input.close() }
        inputOpen = false
    }

    // MARK: Reading

    /// The next message, or `nil` at the end of the plugin's stdout.
    func read() throws -> JSONValue? {
        try condition.withLock {
            let deadline = SystemProcess.monotonicNanoseconds() + PluginDriver.hangGuard
            while messages.isEmpty && !ended {
                let now = SystemProcess.monotonicNanoseconds()
                if now >= deadline {
                    throw DriverError(
                        "the plugin sent nothing for \(PluginDriver.hangGuard / 1_000_000_000) s; stderr: \(stderrTail)"
                    )
                }
                condition.wait(timeoutNanoseconds: deadline - now)
            }
            // Not `messages.isEmpty ? nil : …`: there `nil` would be JSONValue's nil literal, `.null`.
            guard !messages.isEmpty else { return Optional<JSONValue>.none }
            return messages.removeFirst()
        }
    }

    /// Reads until the reply to `id`: the messages before it and the reply.
    func reply(to id: JSONValue) throws -> (before: [JSONValue], reply: JSONValue) {
        var before: [JSONValue] = []
        while true {
            guard let message = try read() else {
                throw DriverError("the plugin ended before replying to \(id); stderr: \(stderrLines.suffix(10))")
            }
            if message["id"] == id && message["method"] == .none { return (before, message) }
            before.append(message)
        }
    }

    /// Sends a request and returns its reply; other messages before it are an error.
    func call(_ method: String, _ params: JSONValue? = nil) throws -> JSONValue {
        let (before, reply) = try reply(to: request(method, params))
        guard before.isEmpty else { throw DriverError("unexpected messages before the reply: \(before)") }
        return reply
    }

    /// initialize, then initialized; returns the result.
    @discardableResult
    func initialize(options: JSONObject = [:]) throws -> JSONValue {
        let reply = try call(
            "initialize",
            [
                "protocol": 1, "host": ["name": "mobiusd", "version": "test"], "app": "test-app", "plugin": "fx",
                "options": .object(options),
            ])
        guard let result = reply["result"] else { throw DriverError("initialize failed: \(reply)") }
        try notify("initialized")
        return result
    }

    /// shutdown, close stdin, read to the end, wait: the reply, the other messages, how it ended.
    func shutdown() throws -> (reply: JSONValue, rest: [JSONValue], exit: ChildProcess.Termination) {
        var (rest, reply) = try reply(to: request("shutdown"))
        closeInput()
        while let message = try read() { rest.append(message) }
        return (reply, rest, try waitForExit())
    }

    /// Waits for the plugin to exit (it must be about to) and reaps it.
    func waitForExit() throws -> ChildProcess.Termination {
        if let exitStatus { return exitStatus }
        let ended = try child.waitForExit()
        exitStatus = ended
        // The child is gone, so its stderr pipe ends too: wait until the reader has all of it.
        condition.withLock {
            while !stderrEnded { condition.wait(timeoutNanoseconds: PluginDriver.hangGuard) }
        }
        return ended
    }

    /// The plugin's stderr so far, as lines (all of it once `waitForExit` has returned).
    var stderrLines: [String] {
        Self.lines(condition.withLock { stderrBytes })
    }

    /// The last stderr lines, for failure messages; call holding the lock.
    private var stderrTail: String { Self.lines(stderrBytes).suffix(10).joined(separator: " | ") }

    private static func lines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

/// A driver failure with a message for the test log.
struct DriverError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
