import MobiusSystem
import MobiusTestSupport
import Testing

@testable import MobiusDaemon

/// The log's queue and writer thread: rate-limited categories with one counted summary per window, a bounded
/// queue that drops and says how many, and `flush` for exit.
@Suite("Log writer", .serialized, .timeLimit(.scaled(minutes: 1)))
struct LogWriterTests {
    /// A log destination the test reads from: the writer writes one end of a socket pair, the test reads the other.
    final class Destination {
        let pair: SocketPair
        let collector: LineCollector

        init(smallBuffers: Bool = false) throws {
            pair = try SocketPair()
            if smallBuffers {
                try pair.first.setSendBufferSize(4096)
                try pair.second.setReceiveBufferSize(4096)
            }
            collector = try LineCollector(reading: pair.second)
        }

        /// A writer to this destination: `level message` lines.
        func writer(_ limits: LogWriter.Limits) -> LogWriter {
            LogWriter(destination: pair.first, limits: limits) { level, message in Array("\(level) \(message)\n".utf8) }
        }

        /// Closes the pair once `writer` has written everything (a write to a closed pipe would raise SIGPIPE).
        func close(after writer: LogWriter) {
            writer.flush(timeoutNanoseconds: 5_000_000_000)
            pair.close()
        }
    }

    /// A line longer than any socket buffer: the writer stays inside its write until the test reads it all.
    static let stuckLine = String(repeating: "x", count: 2 << 20)

    @Test("limited: a burst per category passes, the rest is held back and summarized once when the window ends")
    func limitedCategories() throws {
        let destination = try Destination()
        let window: UInt64 = 300_000_000
        let writer = destination.writer(LogWriter.Limits(maxQueuedLines: 100, burst: 2, windowNanoseconds: window))
        let started = SystemProcess.monotonicNanoseconds()
        for index in 1...5 { writer.enqueue(.warning, "refused \(index)", category: "refused") }
        writer.enqueue(.info, "unlimited", category: nil)
        writer.enqueue(.notice, "other 1", category: "other")
        let summary = try destination.collector.line(containing: "held back")
        let arrived = SystemProcess.monotonicNanoseconds()
        #expect(arrived - started >= window, "the summary comes when the window ends, not before")
        #expect(summary?.hasPrefix("warning 3 more \"refused\" lines held back") == true, "\(summary ?? "none")")
        #expect(summary?.hasSuffix("the last: refused 5") == true, "\(summary ?? "none")")
        #expect(
            Array(destination.collector.lines.prefix(4)) == [
                "warning refused 1", "warning refused 2", "info unlimited", "notice other 1",
            ])

        writer.enqueue(.warning, "refused 6", category: "refused")
        #expect(try destination.collector.line(containing: "refused 6") == "warning refused 6", "a new window")
        writer.flush(timeoutNanoseconds: 5_000_000_000)
        try destination.collector.readAvailable()
        #expect(destination.collector.lines.count { $0.contains("held back") } == 1, "no summary without held lines")
        destination.close(after: writer)
    }

    @Test("flush writes the summaries of windows still open, so an exiting daemon still says what it held back")
    func flushSummarizesOpenWindows() throws {
        let destination = try Destination()
        let writer = destination.writer(
            LogWriter.Limits(maxQueuedLines: 100, burst: 1, windowNanoseconds: 3_600_000_000_000))
        for index in 1...3 { writer.enqueue(.error, "accept failed \(index)", category: "accept") }
        writer.flush(timeoutNanoseconds: 5_000_000_000)
        try destination.collector.readAvailable()
        #expect(destination.collector.lines.first == "error accept failed 1")
        #expect(
            destination.collector.lines.last?.hasPrefix("error 2 more \"accept\" lines held back") == true,
            "\(destination.collector.lines)")
        #expect(destination.collector.lines.last?.hasSuffix("the last: accept failed 3") == true)
        destination.close(after: writer)
    }

    @Test("a full queue drops new lines and the writer reports how many once it catches up")
    func fullQueueDrops() throws {
        let destination = try Destination(smallBuffers: true)
        let writer = destination.writer(LogWriter.Limits(maxQueuedLines: 2, burst: 5, windowNanoseconds: 1_000_000_000))
        writer.enqueue(.info, Self.stuckLine, category: nil)
        // Bytes arriving mean the writer has taken that line off the queue and is stuck writing it.
        #expect(try destination.collector.readSome(maxBytes: 16))
        for index in 1...5 { writer.enqueue(.info, "line \(index)", category: nil) }
        #expect(try destination.collector.read { $0.contains { $0.contains("dropped") } })
        #expect(
            Array(destination.collector.lines.dropFirst()) == [
                "info line 1", "info line 2", "warning 3 log lines dropped: the log could not keep up",
            ])
        #expect(destination.collector.lines.first?.count == Self.stuckLine.count + "info ".count)
        destination.close(after: writer)
    }

    @Test("flush returns once every queued line is written")
    func flushWaitsForQueuedLines() throws {
        let destination = try Destination()
        let writer = destination.writer(LogWriter.Limits())
        // The writer writes each line on its own; a socket pair's buffer holds a hundred such writes.
        for index in 1...100 { writer.enqueue(.info, "queued \(index)", category: nil) }
        let started = SystemProcess.monotonicNanoseconds()
        writer.flush(timeoutNanoseconds: 5_000_000_000)
        #expect(SystemProcess.monotonicNanoseconds() - started < 4_000_000_000, "flush returned, not timed out")
        try destination.collector.readAvailable()
        #expect(destination.collector.lines.count == 100, "all written before flush returned")
        #expect(destination.collector.lines.last == "info queued 100")
        destination.close(after: writer)
    }

    @Test("flush gives up after its timeout when the destination does not take the lines")
    func flushTimesOut() throws {
        let destination = try Destination(smallBuffers: true)
        let writer = destination.writer(LogWriter.Limits())
        writer.enqueue(.info, Self.stuckLine, category: nil)
        #expect(try destination.collector.readSome(maxBytes: 16))
        writer.enqueue(.info, "after the stuck line", category: nil)
        let started = SystemProcess.monotonicNanoseconds()
        writer.flush(timeoutNanoseconds: 200_000_000)
        let waited = SystemProcess.monotonicNanoseconds() - started
        #expect(waited >= 200_000_000, "it waited for the writer")
        #expect(waited < 4_000_000_000, "and no longer than asked")
        #expect(try destination.collector.line(containing: "after the stuck line") == "info after the stuck line")
        destination.close(after: writer)
    }

    @Test("limited lines of one category from several threads at once never trap")
    func concurrentCategories() throws {
        let destination = try Destination()
        // A window of 1 ns restarts on almost every line, so windows start as often as possible.
        let writer = destination.writer(LogWriter.Limits(maxQueuedLines: 16, burst: 1, windowNanoseconds: 1))
        let threads = try (0..<4).map { index in
            try spawnThread("test-logger-\(index)") {
                for line in 0..<50_000 { writer.enqueue(.warning, "line \(line)", category: "library error") }
            }
        }
        for thread in threads { thread.join() }
        // Nobody read while the threads logged, so the writer is stuck on a full socket: drain it while flushing.
        let flushed = Checkpoint(false)
        let flusher = try spawnThread("test-flusher") {
            writer.flush(timeoutNanoseconds: 5_000_000_000)
            flushed.update { $0 = true }
        }
        let deadline = SystemProcess.monotonicNanoseconds() + 5_000_000_000
        while !flushed.current && SystemProcess.monotonicNanoseconds() < deadline {
            try destination.collector.readSome(maxBytes: 64 << 10, timeoutNanoseconds: 10_000_000)
        }
        flusher.join()
        try destination.collector.readAvailable()
        #expect(flushed.current)
        #expect(destination.collector.lines.contains { $0.hasPrefix("warning line ") })
        destination.close(after: writer)
    }
}
