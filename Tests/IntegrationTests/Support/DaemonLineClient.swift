import Glibc
import MobiusJSON
import MobiusSystem
import MobiusTestSupport

/// A plain AF_UNIX stream client, as socat or a third-party client would be: blocking connect, writes that never
/// raise SIGPIPE, reads bounded by a deadline (poll), and line framing on `\n`.
final class DaemonLineClient {
    /// The connection; -1 once closed, so later calls fail with EBADF rather than reach a reused descriptor.
    private var socket: FileDescriptor
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    private(set) var sawEndOfFile = false

    /// The descriptor number, for the calls MobiusSystem has no wrapper for (poll, shutdown, MSG_DONTWAIT…).
    private var rawSocket: Int32 { socket.rawValue }

    /// Connects to the socket at `path`; throws on failure (ECONNREFUSED, ENOENT, a path too long…).
    init(path: String) throws {
        do {
            socket = try UnixSocket.connect(path: path)
        } catch {
            throw DaemonTestError("connect \(path): \(error.reason)")
        }
    }

    deinit {
        close()
    }

    // MARK: - Writing

    /// Sends `line` followed by `\n`.
    func send(_ line: String) throws {
        try sendRaw(Array(line.utf8) + [0x0A])
    }

    /// Sends each of `lines` followed by `\n`, in one write sequence.
    func send(lines: [String]) throws {
        var bytes: [UInt8] = []
        for line in lines {
            bytes.append(contentsOf: line.utf8)
            bytes.append(0x0A)
        }
        try sendRaw(bytes)
    }

    /// Sends exactly `bytes` (blocking until all are written).
    func sendRaw(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let result = try bytes[offset...].withUnsafeBytes { raw in
                do throws(SystemError) {
                    return try socket.write(raw, socket: true)
                } catch {
                    throw DaemonTestError("send: \(error.reason)")
                }
            }
            switch result {
            case .transferred(let count): offset += count
            // A blocking socket does not report EAGAIN unless a send timeout is set; wait rather than spin.
            case .wouldBlock, .endOfFile: _ = poll(readable: false, writable: true, timeout: .seconds(1))
            }
        }
    }

    /// Writes as much of `bytes` as the socket takes now without blocking; returns how many bytes went out.
    func sendWithoutBlocking(_ bytes: ArraySlice<UInt8>) throws -> Int {
        guard !bytes.isEmpty else { return 0 }
        let written = bytes.withUnsafeBytes { raw in
            Glibc.send(rawSocket, raw.baseAddress!, raw.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        if written < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return 0 }
            throw DaemonTestError("send: \(String(cString: strerror(errno)))")
        }
        return written
    }

    /// Half-closes: no more requests (`shutdown(SHUT_WR)`), replies can still be read.
    func shutdownWrite() {
        _ = shutdown(rawSocket, Int32(SHUT_WR))
    }

    /// Shrinks the kernel send buffer so a stalled peer shows up after few bytes.
    func setSendBuffer(bytes: Int32) {
        try? socket.setSendBufferSize(bytes)
    }

    /// Closes the connection (idempotent).
    func close() {
        guard socket.rawValue >= 0 else { return }
        socket.close()
        socket = FileDescriptor(rawValue: -1)
    }

    // MARK: - Reading

    /// Waits up to `timeout` for readability (or writability too, when `writable`); returns the revents.
    func poll(readable: Bool = true, writable: Bool = false, timeout: Duration) -> Int16 {
        var events: Int16 = 0
        if readable { events |= Int16(POLLIN) }
        if writable { events |= Int16(POLLOUT) }
        var entry = pollfd(fd: rawSocket, events: events, revents: 0)
        let milliseconds = Int32(
            max(0, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
        while true {
            let result = Glibc.poll(&entry, 1, milliseconds)
            if result < 0 && errno == EINTR { continue }
            return result > 0 ? entry.revents : 0
        }
    }

    /// Reads what is available into the buffer, waiting until `deadline`; false on timeout.
    private func fill(until deadline: ContinuousClock.Instant) throws -> Bool {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return false }
        guard poll(timeout: remaining) != 0 else { return false }
        if bufferStart > 0 && bufferStart == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            bufferStart = 0
        } else if bufferStart > 1 << 20 {
            buffer.removeFirst(bufferStart)
            bufferStart = 0
        }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let result = try chunk.withUnsafeMutableBytes { raw in
            do throws(SystemError) {
                return try socket.read(into: raw)
            } catch {
                throw DaemonTestError("recv: \(error.reason)")
            }
        }
        switch result {
        case .transferred(let count): buffer.append(contentsOf: chunk[0..<count])
        case .endOfFile: sawEndOfFile = true
        case .wouldBlock: break
        }
        return true
    }

    /// The next line (without `\n`), or `nil` at a clean end of file. Throws on timeout (`timeout` times
    /// `TestTime.scale`), on a read error (ECONNRESET is not a clean close), and on a final line the daemon did not
    /// terminate with `\n`.
    func readLine(timeout: Duration = .seconds(5)) throws -> String? {
        try readLine(waiting: TestTime.scaled(timeout), until: ContinuousClock.now + TestTime.scaled(timeout))
    }

    /// `readLine` until `deadline`, the end of a wait of `budget` (for the message).
    private func readLine(waiting budget: Duration, until deadline: ContinuousClock.Instant) throws -> String? {
        while true {
            if let newline = buffer[bufferStart...].firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[bufferStart..<newline], as: UTF8.self)
                bufferStart = newline + 1
                return line
            }
            if sawEndOfFile {
                guard bufferStart == buffer.count else {
                    let rest = String(decoding: buffer[bufferStart...], as: UTF8.self)
                    bufferStart = buffer.count
                    throw DaemonTestError("the daemon closed after an unterminated line: \(rest)")
                }
                return nil
            }
            guard try fill(until: deadline) else {
                let partial = String(decoding: buffer[bufferStart...].prefix(200), as: UTF8.self)
                throw DaemonTestError("no line from the daemon within \(budget) (partial: \"\(partial)\")")
            }
        }
    }

    /// The next line parsed as a reply or stream item; throws at end of file, on timeout, or on invalid JSON.
    func readReply(timeout: Duration = .seconds(5)) throws -> DaemonReply {
        guard let line = try readLine(timeout: timeout) else {
            throw DaemonTestError("the daemon closed the connection where a reply was expected")
        }
        return try DaemonReply(line: line)
    }

    /// Alias of `readReply` for readers of the brief: the next line as JSON.
    func readJSON(timeout: Duration = .seconds(5)) throws -> JSONValue {
        try readReply(timeout: timeout).value
    }

    /// The complete lines that arrive within `timeout` of one wait (possibly none), for clients that interleave
    /// reading with writing. At end of file returns what is left and sets `sawEndOfFile`.
    func readAvailableLines(timeout: Duration) throws -> [String] {
        if !sawEndOfFile { _ = try fill(until: ContinuousClock.now + timeout) }
        var lines: [String] = []
        while let newline = buffer[bufferStart...].firstIndex(of: 0x0A) {
            lines.append(String(decoding: buffer[bufferStart..<newline], as: UTF8.self))
            bufferStart = newline + 1
        }
        return lines
    }

    /// Every remaining byte until the end of file, as text; throws if the connection stays open past `timeout`
    /// (times `TestTime.scale`). For a reader that must keep up with the daemon: it splits no lines while it reads.
    func readTextUntilEndOfFile(timeout: Duration = .seconds(10)) throws -> String {
        let deadline = ContinuousClock.now + TestTime.scaled(timeout)
        while !sawEndOfFile {
            guard try fill(until: deadline) else {
                throw DaemonTestError("the daemon did not close within \(TestTime.scaled(timeout))")
            }
        }
        defer { bufferStart = buffer.count }
        return String(decoding: buffer[bufferStart...], as: UTF8.self)
    }

    /// Every remaining line until a clean end of file; throws if the connection stays open past `timeout` (times
    /// `TestTime.scale`).
    func readUntilEndOfFile(timeout: Duration = .seconds(10)) throws -> [String] {
        let deadline = ContinuousClock.now + TestTime.scaled(timeout)
        var lines: [String] = []
        while let line = try readLine(waiting: TestTime.scaled(timeout), until: deadline) {
            lines.append(line)
        }
        return lines
    }

    /// Sends `line` and returns the next reply (for request/response commands on an otherwise idle connection).
    func request(_ line: String, timeout: Duration = .seconds(5)) throws -> DaemonReply {
        try send(line)
        return try readReply(timeout: timeout)
    }
}

/// One line from the daemon, parsed with MobiusJSON, with accessors for the reply shapes of docs/protocol.md 1.3.
struct DaemonReply: CustomStringConvertible {
    let line: String
    let value: JSONValue

    init(line: String) throws {
        self.line = line
        do {
            value = try JSONValue(parsing: line)
        } catch {
            throw DaemonTestError("the daemon wrote a line that is not JSON (\(error)): \(line)")
        }
    }

    var description: String { line }

    subscript(key: String) -> JSONValue? { value[key] }

    /// `ok`, when present (replies carry it, stream items do not).
    var ok: Bool? { value["ok"]?.boolValue }
    var seq: Int64? { value["seq"]?.int64Value }
    var errorCode: String? { value["error"]?["code"]?.stringValue }
    var errorMessage: String? { value["error"]?["message"]?.stringValue }
    /// The request line an error refers to.
    var lineNumber: Int64? { value["line"]?.int64Value }
    var model: JSONValue? { value["model"] }

    /// Whether this is exactly an event ack `{"ok":true,"seq":N}`.
    var isAck: Bool {
        ok == true && seq != nil && value.objectValue?.count == 2
    }
}
