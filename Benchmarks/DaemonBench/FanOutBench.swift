import Glibc
import Synchronization

/// Scenario 4: `subscribers` connections subscribe; a publisher connection sends `events` events one at a time.
/// A reader thread waits on epoll over every subscriber socket and records, per subscriber and event, the time from the send to
/// the read that completed that subscriber's copy. The next event goes out once every subscriber has it, so
/// latest-wins coalescing never applies.
enum FanOutBench {
    struct Result {
        let p50Microseconds: Double
        let p99Microseconds: Double
    }

    /// State the publisher (calling thread) and the reader thread share.
    private final class Shared: Sendable {
        let sentAt = Atomic<UInt64>(0)
        let samples = Mutex<[UInt64]>([])
        let failure = Mutex<String?>(nil)
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
            stream.setNonBlocking()
        }
        let publisher = try UnixStream.connect(path: socketPath)
        defer { publisher.close() }

        var pipeFds: [Int32] = [0, 0]
        guard pipe(&pipeFds) == 0 else { throw BenchError.system("pipe") }
        defer {
            close(pipeFds[0])
            close(pipeFds[1])
        }
        let shared = Shared()
        let fds = streams.map(\.fd)
        let pushLines = kind.pushLines
        let doneFd = pipeFds[1]
        let reader = BenchThread {
            read(fds: fds, pushLines: pushLines, events: events, shared: shared, doneFd: doneFd)
        }
        let event = kind.event
        var byte: UInt8 = 0
        for _ in 0..<events {
            shared.sentAt.store(MonotonicClock.nanoseconds(), ordering: .releasing)
            try publisher.write(all: event)
            _ = try publisher.readLines(1, into: buffer)
            guard Glibc.read(pipeFds[0], &byte, 1) == 1, byte == 1 else { break }
        }
        reader.join()
        if let failure = shared.failure.withLock({ $0 }) { throw BenchError("\(kind) fan-out: \(failure)") }
        let samples = shared.samples.withLock { $0 }.sorted()
        guard samples.count == subscribers * events else {
            throw BenchError("\(kind) fan-out: \(samples.count) deliveries, expected \(subscribers * events)")
        }
        return Result(
            p50Microseconds: Statistics.percentile(sorted: samples, 0.50) / 1000,
            p99Microseconds: Statistics.percentile(sorted: samples, 0.99) / 1000)
    }

    /// The reader thread: for each event, waits on epoll until every subscriber has its copy, timing each one, then
    /// writes one byte (1 = all delivered, 0 = failed) to `doneFd`.
    private static func read(fds: [Int32], pushLines: Int, events: Int, shared: Shared, doneFd: Int32) {
        var samples: [UInt64] = []
        samples.reserveCapacity(fds.count * events)
        var lines = [Int](repeating: 0, count: fds.count)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 64)
        defer { buffer.deallocate() }
        var failure: String?
        do throws(BenchError) {
            let epoll = try EpollSet(capacity: 1024)
            defer { epoll.close() }
            for (index, fd) in fds.enumerated() { try epoll.addReadable(fd, token: UInt64(index)) }
            eventLoop: for event in 0..<events {
                let target = (event + 1) * pushLines
                var delivered = 0
                while delivered < fds.count {
                    let ready = try epoll.wait(timeoutMilliseconds: 10_000) { token in
                        let subscriber = Int(token)
                        let count = Glibc.read(fds[subscriber], buffer.baseAddress!, buffer.count)
                        guard count > 0 else { return }
                        let before = lines[subscriber]
                        lines[subscriber] += LineCounter.count(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                        if before < target && lines[subscriber] >= target {
                            samples.append(MonotonicClock.nanoseconds() - shared.sentAt.load(ordering: .acquiring))
                            delivered += 1
                        }
                    }
                    guard ready > 0 else {
                        failure = "\(fds.count - delivered) subscribers did not get event \(event + 1) within 10 s"
                        break eventLoop
                    }
                }
                if let extra = lines.firstIndex(where: { $0 > target }) {
                    failure = "subscriber \(extra) got more than one copy of event \(event + 1)"
                    break eventLoop
                }
                var one: UInt8 = 1
                _ = write(doneFd, &one, 1)
            }
        } catch {
            failure = error.description
        }
        shared.samples.withLock { $0 = samples }
        if let failure {
            shared.failure.withLock { $0 = failure }
            var zero: UInt8 = 0
            _ = write(doneFd, &zero, 1)
        }
    }
}
