import Foundation
import MobiusJSON
import Testing

/// Runs the built `todo-daemon` and talks to it over its socket with socat, as a user would.
@Suite("todo-daemon as a running daemon", .serialized, .timeLimit(.scaled(minutes: 1)))
struct TodoDaemonTests {
    static var binaryDirectory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// Sends `lines` through `socat` and returns the reply lines.
    func socat(_ lines: [String], socket: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
        process.arguments = ["-t", "5", "-", "UNIX-CONNECT:\(socket)"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("typed events decode from JSON, the model is published as JSON, bad events get InvalidEvent")
    func roundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("todo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("todo.sock").path
        let daemon = Process()
        daemon.executableURL = Self.binaryDirectory.appendingPathComponent("todo-daemon")
        daemon.arguments = ["--socket", socket, "--state-dir", directory.appendingPathComponent("state").path]
        let log = Pipe()
        daemon.standardError = log
        daemon.standardOutput = Pipe()
        try daemon.run()
        defer {
            if daemon.isRunning { daemon.terminate() }
        }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }

        let replies = try socat(
            [
                #"{"type":"add","title":"buy milk"}"#, #"{"type":"complete","id":1}"#, #"{"type":"add"}"#,
                #"model {"path":"/items/0"}"#,
            ], socket: socket)
        let parsed = try replies.map { try JSONValue(parsing: $0) }
        try #require(parsed.count == 4, "\(replies)")
        #expect(parsed[0] == ["ok": true, "seq": 1])
        #expect(parsed[1] == ["ok": true, "seq": 2])
        #expect(parsed[2]["error"]?["code"] == "InvalidEvent")
        #expect(parsed[2]["line"] == 3)
        #expect(parsed[3]["model"] == ["id": 1, "title": "buy milk", "done": true])

        daemon.terminate()
        daemon.waitUntilExit()
        #expect(daemon.terminationStatus == 0)
        let stderr = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.contains("todo: all done!"), "the Swift effect route ran: \(stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket file is removed on exit")
    }
}
