import MobiusSystem
import MobiusTestSupport
import Testing

/// Reads newline-terminated lines from the receiving end of a socket pair, waiting for them with a bound (through
/// an epoll set, so a missing line fails the test instead of hanging it).
final class LineCollector {
    let fd: FileDescriptor
    private let epoll: Epoll
    private var partial: [UInt8] = []
    /// Every complete line read so far, without its newline.
    private(set) var lines: [String] = []
    /// Bytes read so far.
    private(set) var byteCount = 0

    init(reading fd: FileDescriptor) throws {
        self.fd = fd
        try fd.setNonBlocking()
        epoll = try Epoll(capacity: 4)
        try epoll.add(fd, events: .readable, token: 1)
    }

    /// Reads whatever is there now, without waiting; returns whether anything was read.
    @discardableResult
    func readAvailable() throws -> Bool {
        var any = false
        while try readOnce(maxBytes: 64 << 10) { any = true }
        return any
    }

    /// Waits (at most `timeoutNanoseconds`) until something can be read, then reads once, at most `maxBytes`;
    /// returns whether anything was read.
    @discardableResult
    func readSome(maxBytes: Int, timeoutNanoseconds: UInt64 = 5_000_000_000) throws -> Bool {
        let milliseconds = Int32(min(timeoutNanoseconds / 1_000_000 + 1, 60_000))
        try epoll.wait(timeoutMilliseconds: milliseconds) { _, _ in }
        return try readOnce(maxBytes: maxBytes)
    }

    private func readOnce(maxBytes: Int) throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        let result = try buffer.withUnsafeMutableBytes { try fd.read(into: $0) }
        guard case .transferred(let count) = result else { return false }
        byteCount += count
        var rest = buffer[..<count]
        while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            partial += rest[..<newline]
            lines.append(String(decoding: partial, as: UTF8.self))
            partial.removeAll(keepingCapacity: true)
            rest = rest[(newline + 1)...]
        }
        partial += rest
        return true
    }

    /// Reads until `done` holds for the lines read so far or `timeoutNanoseconds` (times `TestTime.scale`) pass;
    /// returns whether it holds.
    @discardableResult
    func read(
        timeoutNanoseconds: UInt64 = 5_000_000_000, until done: ([String]) -> Bool
    ) throws -> Bool {
        let deadline = SystemProcess.monotonicNanoseconds() + TestTime.scaled(nanoseconds: timeoutNanoseconds)
        try readAvailable()
        while !done(lines) {
            let now = SystemProcess.monotonicNanoseconds()
            guard now < deadline else { return false }
            let milliseconds = Int32(min((deadline - now) / 1_000_000 + 1, 60_000))
            try epoll.wait(timeoutMilliseconds: milliseconds) { _, _ in }
            try readAvailable()
        }
        return true
    }

    /// Reads until a line containing `text` has arrived; returns that line, or `nil` after the timeout.
    func line(containing text: String, timeoutNanoseconds: UInt64 = 5_000_000_000) throws -> String? {
        try read(timeoutNanoseconds: timeoutNanoseconds) { $0.contains { $0.contains(text) } }
        return lines.first { $0.contains(text) }
    }
}
