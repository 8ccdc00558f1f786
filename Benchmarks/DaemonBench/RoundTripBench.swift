import MobiusSystem

/// Scenario 3: one event at a time on one connection; send, wait for the reply, repeat.
enum RoundTripBench {
    struct Result {
        let perSecond: Double
        let p50Microseconds: Double
        let p99Microseconds: Double
    }

    /// - Parameter event: what to send instead of `kind.event` (redis `INCR` for the durable scenario).
    static func run(
        kind: ServerKind, socketPath: String, count: Int, event: [UInt8]? = nil
    ) throws(BenchError)
        -> Result
    {
        let stream = try UnixStream.connect(path: socketPath)
        defer { stream.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 64)
        defer { buffer.deallocate() }
        let event = event ?? kind.event
        var latencies = [UInt64](repeating: 0, count: count)
        let start = SystemProcess.monotonicNanoseconds()
        for index in 0..<count {
            let sent = SystemProcess.monotonicNanoseconds()
            try stream.write(all: event)
            var lines = 0
            while lines == 0 {
                let read = try stream.read(into: buffer)
                guard read > 0 else { throw BenchError("\(kind) closed the connection") }
                lines = LineCounter.count(UnsafeRawBufferPointer(rebasing: buffer[0..<read]))
            }
            guard lines == 1 else { throw BenchError("\(kind): \(lines) replies to one event") }
            latencies[index] = SystemProcess.monotonicNanoseconds() - sent
        }
        let elapsed = SystemProcess.monotonicNanoseconds() - start
        latencies.sort()
        return Result(
            perSecond: Double(count) / (Double(elapsed) / 1e9),
            p50Microseconds: Statistics.percentile(sorted: latencies, 0.50) / 1000,
            p99Microseconds: Statistics.percentile(sorted: latencies, 0.99) / 1000)
    }
}
