import MobiusSystem
import MobiusTestSupport

/// Shows the load generator is not the bottleneck: the same chunked writer thread and line-counting reader, joined
/// by a socketpair with no server in between, must move far more messages per second than either server handles.
enum GeneratorCapacity {
    struct Result {
        /// Events a writer thread pushes while a reader drains them, per kind.
        let pushPerSecond: [ServerKind: Double]
        /// Replies the reader counts while a writer thread supplies them, per kind.
        let parsePerSecond: [ServerKind: Double]

        /// The slowest of the four paths.
        var floor: Double { (Array(pushPerSecond.values) + Array(parsePerSecond.values)).min() ?? 0 }
    }

    static func measure(count: Int) throws(BenchError) -> Result {
        var push: [ServerKind: Double] = [:]
        var parse: [ServerKind: Double] = [:]
        for kind in ServerKind.allCases {
            push[kind] = try pump(item: kind.event, count: count)
        }
        parse[.mobiusd] = try pump(item: Array(#"{"ok":true,"seq":1234567}"#.utf8) + [0x0A], count: count)
        parse[.redis] = try pump(item: Array(":1234567\r\n".utf8), count: count)
        return Result(pushPerSecond: push, parsePerSecond: parse)
    }

    /// Items per second through a socketpair: a writer thread sends `count` items in `IngestBench.chunkEvents`
    /// chunks, the calling thread reads and counts lines until all arrived.
    private static func pump(item: [UInt8], count: Int) throws(BenchError) -> Double {
        let pair = try BenchError.checking { () throws(SystemError) in try SocketPair() }
        defer { pair.close() }
        let sender = UnixStream(fd: pair.first)
        let receiver = UnixStream(fd: pair.second)
        sender.enlargeBuffers()
        receiver.enlargeBuffers()
        let chunk = Array([[UInt8]](repeating: item, count: IngestBench.chunkEvents).joined())
        let itemSize = item.count
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        let start = SystemProcess.monotonicNanoseconds()
        let writer = try BenchThread(name: "bench-writer") {
            chunk.withUnsafeBytes { whole in
                var remaining = count
                while remaining > 0 {
                    let items = min(remaining, IngestBench.chunkEvents)
                    do {
                        try sender.write(all: UnsafeRawBufferPointer(rebasing: whole[0..<(items * itemSize)]))
                    } catch {
                        fatalError("generator capacity writer: \(error)")
                    }
                    remaining -= items
                }
            }
        }
        var lines = 0
        let expected = count * item.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        while lines < expected {
            let read = try receiver.read(into: buffer)
            guard read > 0 else { throw BenchError("socketpair closed early") }
            lines += LineCounter.count(UnsafeRawBufferPointer(rebasing: buffer[0..<read]))
        }
        let elapsed = SystemProcess.monotonicNanoseconds() - start
        writer.join()
        return Double(count) / (Double(elapsed) / 1e9)
    }
}
