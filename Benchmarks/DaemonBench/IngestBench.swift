import MobiusSystem

/// Scenarios 1 and 2: one connection, `events` events written back to back in big chunks by a writer thread
/// while the calling thread reads and counts the replies.
enum IngestBench {
    /// Events per write: about 86 KB for mobiusd, 190 KB for redis.
    static let chunkEvents = 4096

    /// Events per second from the first write to the last awaited reply. With `replies == false` (mobiusd only)
    /// the connection says `reply off` first and the run ends at the reply to a trailing `ping`.
    /// `event` replaces `kind.event` (redis `INCR` for the durable scenario).
    static func run(
        kind: ServerKind, socketPath: String, events: Int, replies: Bool, event: [UInt8]? = nil
    ) throws(BenchError) -> Double {
        let event = event ?? kind.event
        precondition(replies || kind == .mobiusd, "redis always replies to PUBLISH")
        let stream = try UnixStream.connect(path: socketPath)
        defer { stream.close() }
        stream.enlargeBuffers()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }

        var firstSeq = 0
        if kind == .mobiusd {
            try stream.write(all: Array((replies ? "ping\n" : "reply off\n").utf8))
            let reply = try stream.readLines(1, into: buffer)
            if replies {
                firstSeq = try Self.seq(in: reply)
            } else {
                try stream.write(all: Array("ping\n".utf8))
                firstSeq = try Self.seq(in: try stream.readLines(1, into: buffer))
            }
        }

        let chunk = Array([[UInt8]](repeating: event, count: chunkEvents).joined())
        let eventSize = event.count
        let trailer: [UInt8] = replies ? [] : Array("ping\n".utf8)
        let expectedLines = replies ? events : 1
        let start = SystemProcess.monotonicNanoseconds()
        let writer = try BenchThread(name: "bench-writer") {
            do {
                try chunk.withUnsafeBytes { whole in
                    var remaining = events
                    while remaining > 0 {
                        let count = min(remaining, chunkEvents)
                        try stream.write(all: UnsafeRawBufferPointer(rebasing: whole[0..<(count * eventSize)]))
                        remaining -= count
                    }
                }
                if !trailer.isEmpty { try stream.write(all: trailer) }
            } catch {
                fatalError("ingest writer: \(error)")
            }
        }
        var lines = 0
        // The tail of the stream, to check the last reply.
        var tail: [UInt8] = []
        tail.reserveCapacity(128)
        while lines < expectedLines {
            let count = try stream.read(into: buffer)
            guard count > 0 else { throw BenchError("\(kind) closed the connection after \(lines) replies") }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            lines += LineCounter.count(bytes)
            tail.append(contentsOf: bytes.suffix(64))
            if tail.count > 128 { tail.removeFirst(tail.count - 64) }
        }
        let elapsed = SystemProcess.monotonicNanoseconds() - start
        writer.join()
        guard lines == expectedLines else { throw BenchError("\(kind): \(lines) replies, expected \(expectedLines)") }
        let lastLine = tail.dropLast().split(separator: 0x0A).last.map(Array.init) ?? []
        switch kind {
        case .mobiusd:
            let lastSeq = try Self.seq(in: lastLine)
            guard lastSeq == firstSeq + events else {
                throw BenchError("mobiusd: last reply has seq \(lastSeq), expected \(firstSeq + events): events lost")
            }
        case .redis:
            guard lastLine.first == UInt8(ascii: ":") else {
                throw BenchError("redis: unexpected last reply \(String(decoding: lastLine, as: UTF8.self))")
            }
        }
        return Double(events) / (Double(elapsed) / 1e9)
    }

    /// The `"seq":N` of a mobiusd reply line.
    static func seq(in line: [UInt8]) throws(BenchError) -> Int {
        let key = Array(#""seq":"#.utf8)
        guard line.count > key.count else {
            throw BenchError("unexpected reply: \(String(decoding: line, as: UTF8.self))")
        }
        for start in 0...(line.count - key.count) where line[start..<(start + key.count)].elementsEqual(key) {
            var value = 0
            for byte in line[(start + key.count)...] {
                guard byte >= 0x30 && byte <= 0x39 else { break }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        throw BenchError("no seq in reply: \(String(decoding: line, as: UTF8.self))")
    }
}
