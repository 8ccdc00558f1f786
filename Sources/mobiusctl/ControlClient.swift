import MobiusJSON
import MobiusSystem

/// Runs one command against the daemon: connect, write the request line, read the reply and any stream.
struct ControlClient {
    let command: Command
    let socket: SocketChoice
    let console: Console

    var socketPath: String { socket.path }

    /// Runs the command and returns the exit status (see ``ExitStatus``).
    func run() -> Int32 {
        let fd: FileDescriptor
        do {
            fd = try UnixSocket.connectInterruptibly(path: socketPath)
        } catch {
            if InterruptRequest.isPending { return ExitStatus.success }
            let hint = error.suggestsNoListener ? " — is mobiusd running?" : ""
            console.error("cannot connect to \(socketPath): \(Self.reason(error))\(hint)")
            // Nobody there: say how the path was chosen, the usual cause being a daemon on another path.
            if error.suggestsNoListener { console.error(socket.hint) }
            return ExitStatus.unreachable
        }
        defer { fd.close() }
        if case .top = command { return TopSession(fd: fd, socket: socket, console: console).run() }
        // Without the handler Ctrl-C simply ends the process; a stream should end quietly with status 0 instead.
        if command.endsByInterrupt { try? InterruptRequest.catchSignal(shuttingDown: fd) }
        do {
            if let seconds = command.replyTimeout { try fd.setReceiveTimeout(seconds: seconds) }
            // The write end stays open: the daemon keeps streams only while we might still send.
            try fd.writeAllInterruptibly(Array((command.requestLine + "\n").utf8), socket: true)
            if case .metrics(_, let output) = command { return try metricsText(LineReader(fd: fd), output: output) }
            if case .model(_, let at?) = command, let line = ProgressLine() {
                // Ctrl-C while the line may show: the line goes first, then the process ends by SIGINT as usual.
                try? InterruptRequest.catchSignal(shuttingDown: fd)
                HistoryProgress(answer: fd, socketPath: socketPath, at: at, line: line).waitForAnswer()
                if InterruptRequest.isPending { InterruptRequest.endByInterrupt() }
            }
            return try converse(LineReader(fd: fd))
        } catch {
            if command.endsByInterrupt && InterruptRequest.isPending { return ExitStatus.success }
            if InterruptRequest.isPending { InterruptRequest.endByInterrupt() }
            if error.isTimedOut, let seconds = command.replyTimeout {
                console.error("\(socketPath): no answer within \(seconds) s; the \(command.name) may still finish")
                return ExitStatus.unreachable
            }
            let what = error.isPeerGone ? "mobiusd closed the connection" : "\(error.operation): \(Self.reason(error))"
            console.error("\(socketPath): \(what)")
            return ExitStatus.unreachable
        }
    }

    /// The C library's text for the failure, except for a path too long for a socket address, which strerror
    /// calls "File name too long" without saying what the limit is.
    private static func reason(_ error: SystemError) -> String {
        guard error.isPathTooLong else { return error.reason }
        return "the path is longer than a Unix socket path may be (\(UnixSocket.maximumPathLength) bytes)"
    }

    /// Parses the daemon's lines. A line wraps the values it carries (a model, an event) in one object, and those
    /// values may nest as deep as the daemon's limit, so a line may nest one level deeper.
    static let lineParser = JSONParser(maxDepth: JSONParser.defaultMaxDepth + 1)

    /// Reads lines until the reply (and for streams, their end).
    private func converse(_ lines: LineReader) throws(SystemError) -> Int32 {
        var lines = lines
        var replied = false
        while let line = try lines.nextLine() {
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            guard let value = try? Self.lineParser.parse(line), value.objectValue != nil else {
                console.error("\(socketPath): unexpected line from mobiusd: \(String(decoding: line, as: UTF8.self))")
                return ExitStatus.unreachable
            }
            if let ok = value["ok"] {
                if !console.human { console.out(line) }
                guard ok.boolValue == true else {
                    console.error(HumanFormat.error(value))
                    return ExitStatus.errorReply
                }
                // A stream item is never a reply, so only the first reply counts; later ones are not ours.
                guard !replied else { continue }
                replied = true
                if console.human { show(HumanFormat.reply(value, for: command)) }
                if !command.streams { return ExitStatus.success }
                continue
            }
            if console.human { show(HumanFormat.item(value, for: command)) } else { console.out(line) }
            if case .log = command, value["end"]?.boolValue == true {
                // The daemon's journal cannot serve the next events (`JournalDamaged`): the stream ends in error.
                guard value["error"] == nil else {
                    console.error(HumanFormat.error(value))
                    return ExitStatus.errorReply
                }
                return ExitStatus.success
            }
        }
        if command.endsByInterrupt && InterruptRequest.isPending { return ExitStatus.success }
        guard replied else {
            console.error("\(socketPath): mobiusd closed the connection before answering")
            return ExitStatus.unreachable
        }
        if case .log = command {
            console.error("\(socketPath): mobiusd closed the connection before the end of the log")
            return ExitStatus.unreachable
        }
        return ExitStatus.success  // watch and monitor: the daemon ended the stream (it stopped)
    }

    /// Prints the text `metrics` answers through its `# EOF` line, whatever the output mode: it is not JSON; or, with
    /// `output`, writes it there once it is whole. An error reply is a JSON line instead.
    private func metricsText(_ lines: LineReader, output: String?) throws(SystemError) -> Int32 {
        var lines = lines
        var text: [UInt8] = []
        while let line = try lines.nextLine() {
            if text.isEmpty, line.first == UInt8(ascii: "{"), let value = try? Self.lineParser.parse(line) {
                console.error(HumanFormat.error(value))
                return ExitStatus.errorReply
            }
            text += line
            text.append(UInt8(ascii: "\n"))
            if output == nil { console.out(line) }
            guard line.elementsEqual("# EOF".utf8) else { continue }
            guard let output else { return ExitStatus.success }
            do {
                try Self.replace(output, with: text)
                return ExitStatus.success
            } catch {
                console.error("cannot write \(output): \(error.reason); it is left as it was")
                return ExitStatus.outputFailed
            }
        }
        console.error("\(socketPath): mobiusd closed the connection before the end of the metrics")
        return ExitStatus.unreachable
    }

    /// Writes `bytes` to `path` in one step for its readers (node_exporter's textfile collector): to a temporary
    /// file beside it, synced, then renamed over it; a failure removes the temporary file.
    static func replace(_ path: String, with bytes: [UInt8]) throws(SystemError) {
        let temporary = path + ".tmp"
        try? FileSystem.remove(temporary)
        do throws(SystemError) {
            let fd = try FileDescriptor.openFile(temporary, .createNew(mode: 0o644))
            defer { fd.close() }
            try fd.writeAll(bytes, at: 0)
            try fd.synchronize()
            try FileSystem.rename(temporary, to: path)
        } catch {
            try? FileSystem.remove(temporary)
            throw error
        }
    }

    private func show(_ rendering: Rendering) {
        for line in rendering.output { console.out(line) }
        for note in rendering.notes { console.note(note) }
    }
}
