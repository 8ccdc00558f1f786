import MobiusSystem
import Synchronization

/// Scenario 4: `subscribers` connections subscribe; a publisher connection sends `events` events one at a time.
/// A reader thread waits on epoll over every subscriber socket and records, per subscriber and event, the time from
/// the send to the read that completed that subscriber's copy. The next event goes out once every subscriber has
/// it, so latest-wins coalescing never applies.
enum FanOutBench {
    struct Result {
        let p50Microseconds: Double
        let p99Microseconds: Double
    }

    /// State the publisher (calling thread) and the reader thread share.
    private final class Shared: @unchecked Sendable {
        // @unchecked: `delivered` and `failure` are only touched inside `condition.withLock`; the rest is atomic or
        // behind a Mutex.
        let sentAt = Atomic<UInt64>(0)
        let samples = Mutex<[UInt64]>([])
        private let condition = ThreadCondition()
        private var delivered = 0
        private var failure: String?

        /// The reader: every subscriber has one more event.
        func markDelivered() {
            condition.withLock { delivered += 1 }
            condition.broadcast()
        }

        /// The reader: it gave up, saying why.
        func markFailed(_ reason: String) {
            condition.withLock { failure = reason }
            condition.broadcast()
        }

        /// The publisher: waits until every subscriber has `events` events; `false` when the reader gave up.
        func waitUntilDelivered(_ events: Int) -> Bool {
            condition.withLock {
                while delivered < events && failure == nil { condition.wait() }
                return failure == nil
            }
        }

        var failureReason: String? { condition.withLock { failure } }
    }

    static func run(kind: ServerKind, socketPath: String, subscribers: Int, events: Int) throws(BenchError) -> Result {
        var streams: [UnixStream] = []
        defer { for stream in streams { stream.close() } }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 64)
        defer { buffer.deallocate() }
        for _ in 0..<subscribers {
            let stream = try UnixStream.connect(path: socketPath)
            streams.append(stream)
            try stream.write(all: kind.subscribeRequest)
        }
        for stream in streams {
            let reply = try stream.readLines(kind.subscribeReplyLines, into: buffer)
            guard reply.withUnsafeBytes(LineCounter.count) == kind.subscribeReplyLines
            else { throw BenchError("\(kind): unexpected subscribe reply \(String(decoding: reply, as: UTF8.self))") }
            try stream.setNonBlocking()
        }
        let publisher = try UnixStream.connect(path: socketPath)
        defer { publisher.close() }

        let shared = Shared()
        let fds = streams.map(\.fd)
        let pushLines = kind.pushLines
        let reader = try BenchThread(name: "bench-reader") {
            read(fds: fds, pushLines: pushLines, events: events, shared: shared)
        }
        let event = kind.event
        for index in 0..<events {
            shared.sentAt.store(SystemProcess.monotonicNanoseconds(), ordering: .releasing)
            try publisher.write(all: event)
            _ = try publisher.readLines(1, into: buffer)
            guard shared.waitUntilDelivered(index + 1) else { break }
        }
        reader.join()
        if let failure = shared.failureReason { throw BenchError("\(kind) fan-out: \(failure)") }
        let samples = shared.samples.withLock { $0 }.sorted()
        guard samples.count == subscribers * events else {
            throw BenchError("\(kind) fan-out: \(samples.count) deliveries, expected \(subscribers * events)")
        }
        return Result(
            p50Microseconds: Statistics.percentile(sorted: samples, 0.50) / 1000,
            p99Microseconds: Statistics.percentile(sorted: samples, 0.99) / 1000)
    }

    /// The reader thread: for each event, waits on epoll until every subscriber has its copy, timing each one, then
    /// tells the publisher (or tells it why it gave up).
    private static func read(fds: [FileDescriptor], pushLines: Int, events: Int, shared: Shared) {
        var samples: [UInt64] = []
        samples.reserveCapacity(fds.count * events)
        var lines = [Int](repeating: 0, count: fds.count)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 64)
        defer { buffer.deallocate() }
        var failure: String?
        do throws(SystemError) {
            let epoll = try Epoll(capacity: 1024)
            for (index, fd) in fds.enumerated() { try epoll.add(fd, events: .readable, token: UInt64(index)) }
            eventLoop: for event in 0..<events {
                let target = (event + 1) * pushLines
                let deadline = SystemProcess.monotonicNanoseconds() + 10_000_000_000
                var delivered = 0
                var readFailure: SystemError?
                while delivered < fds.count {
                    try epoll.wait(timeoutMilliseconds: 1000) { token, _ in
                        let subscriber = Int(token)
                        let outcome: FileDescriptor.IOResult
                        do throws(SystemError) {
                            outcome = try fds[subscriber].read(into: buffer)
                        } catch {
                            readFailure = error
                            return
                        }
                        guard case .transferred(let count) = outcome else { return }
                        let before = lines[subscriber]
                        lines[subscriber] += LineCounter.count(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                        if before < target && lines[subscriber] >= target {
                            let sent = shared.sentAt.load(ordering: .acquiring)
                            samples.append(SystemProcess.monotonicNanoseconds() - sent)
                            delivered += 1
                        }
                    }
                    if let readFailure { throw readFailure }
                    if delivered < fds.count && SystemProcess.monotonicNanoseconds() > deadline {
                        failure = "\(fds.count - delivered) subscribers did not get event \(event + 1) within 10 s"
                        break eventLoop
                    }
                }
                if let extra = lines.firstIndex(where: { $0 > target }) {
                    failure = "subscriber \(extra) got more than one copy of event \(event + 1)"
                    break eventLoop
                }
                shared.markDelivered()
            }
        } catch {
            failure = error.description
        }
        shared.samples.withLock { $0 = samples }
        if let failure { shared.markFailed(failure) }
    }
}
