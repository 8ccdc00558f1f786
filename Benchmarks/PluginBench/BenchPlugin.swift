import MobiusJSON
import MobiusSystem

/// A plugin started as mobiusd starts one, past its handshake, driven as fast as it answers.
final class BenchPlugin {
    private let process: PipedProcess
    private var lines: BenchLines

    init(_ command: [String]) throws {
        var environment = ["MOBIUSD_PLUGIN=1", "MOBIUSD_PROTOCOL=1", "MOBIUSD_PLUGIN_NAME=bench", "MOBIUSD_APP=bench"]
        for name in ["PATH", "HOME", "LANG"] {
            if let value = SystemProcess.environment(name) { environment.append("\(name)=\(value)") }
        }
        process = try PipedProcess.spawn(program: command[0], arguments: command, environment: environment)
        process.errorOutput.close()  // the plugin's log is not read; writes to it fail quietly
        lines = BenchLines(process.output)
        try send(#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocol":1,"app":"bench","options":{}}}"#)
        guard let reply = try read(), reply["result"] != .none else { throw BenchError("no initialize result") }
        try send(#"{"jsonrpc":"2.0","method":"initialized"}"#)
    }

    /// `count` echo effects with at most `window` in flight; every reply is checked.
    func effects(count: Int, window: Int) throws {
        var sent = 0
        var answered = 0
        while answered < count {
            var batch: [UInt8] = []
            while sent < count && sent - answered < window {
                sent += 1
                batch += Array(
                    #"{"jsonrpc":"2.0","id":\#(sent),"method":"effect","params":{"effect":{"type":"echo"}}}"#.utf8)
                batch.append(0x0A)
            }
            if !batch.isEmpty { try process.input.writeAll(batch) }
            guard let message = try read() else { throw BenchError("the plugin ended") }
            if message["id"] != .none {
                guard message["result"] != .none else { throw BenchError("effect failed: \(message)") }
                answered += 1
            }
        }
    }

    /// `count` `{"type":"inc"}` events through update (batch 1) or updateBatch, one request at a time as the host
    /// sends them.
    func updates(count: Int, batch: Int) throws {
        var model: JSONValue = 0
        var done = 0
        var id = 0
        while done < count {
            let size = min(batch, count - done)
            id += 1
            let events = Array(repeating: #"{"type":"inc"}"#, count: size).joined(separator: ",")
            let modelText = String(decoding: model.encoded(), as: UTF8.self)
            let params =
                batch == 1
                ? #""update","params":{"model":\#(modelText),"event":\#(events)}"#
                : #""updateBatch","params":{"model":\#(modelText),"events":[\#(events)]}"#
            try send(#"{"jsonrpc":"2.0","id":\#(id),"method":\#(params)}"#)
            var reply = try read()
            while let message = reply, message["id"] == .none { reply = try read() }  // the plugin's own events
            guard let result = reply?["result"] else { throw BenchError("update failed: \(String(describing: reply))") }
            if let next = result["model"] { model = next }
            done += size
        }
        guard model == .number(JSONNumber(count)) else { throw BenchError("the model ended at \(model), not \(count)") }
    }

    func close() {
        process.input.close()
        _ = try? ChildProcess(processID: process.processID).waitForExit()
    }

    private func send(_ line: String) throws {
        try process.input.writeAll(Array(line.utf8) + [0x0A])
    }

    private func read() throws -> JSONValue? {
        guard let line = lines.next() else { return nil }
        return try JSONValue(parsing: line)
    }
}

/// A benchmark that could not run.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
