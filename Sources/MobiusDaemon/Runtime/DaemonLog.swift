import MobiusSystem

/// The daemon's log: lines on stderr, with sd-daemon `<N>` priority prefixes when stderr goes to the journal
/// (JOURNAL_STREAM is set), else with a timestamp for people reading a terminal.
///
/// Nothing that logs ever waits for stderr: lines go into a bounded queue that a writer thread of its own drains
/// (a full queue drops lines and says how many). Lines that clients or plugins can cause at will go through
/// `limited`, which passes a burst per category and window and then reports how many it held back.
final class DaemonLog: Sendable {
    /// Syslog priorities, most severe first.
    enum Level: Int, Comparable, Sendable, CaseIterable {
        case error = 3
        case warning = 4
        case notice = 5
        case info = 6
        case debug = 7

        static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// Parses a `--log-level` value.
        init?(name: String) {
            guard let level = Level.allCases.first(where: { "\($0)" == name }) else { return nil }
            self = level
        }
    }

    let threshold: Level
    private let writer: LogWriter

    /// - Parameters:
    ///   - threshold: the least severe level written.
    ///   - destination: where lines go (stderr; tests use a pipe).
    ///   - limits: the queue bound and the rate limit of `limited`.
    init(threshold: Level = .info, destination: FileDescriptor = .standardError, limits: LogWriter.Limits = .init()) {
        self.threshold = threshold
        let journal = SystemProcess.environment("JOURNAL_STREAM") != nil
        self.writer = LogWriter(destination: destination, limits: limits) { level, message in
            DaemonLog.format(level, message, journal: journal)
        }
    }

    func error(_ message: @autoclosure () -> String) { write(.error, message()) }
    func warning(_ message: @autoclosure () -> String) { write(.warning, message()) }
    func notice(_ message: @autoclosure () -> String) { write(.notice, message()) }
    func info(_ message: @autoclosure () -> String) { write(.info, message()) }
    func debug(_ message: @autoclosure () -> String) { write(.debug, message()) }

    /// Queues a line; never blocks.
    func write(_ level: Level, _ message: String) {
        guard level <= threshold else { return }
        writer.enqueue(level, message, category: nil)
    }

    /// Queues a line that a client or plugin can cause at will: the first few per `category` in each window are
    /// written, the rest counted and reported in one summary line when the window ends.
    func limited(_ category: String, _ level: Level, _ message: @autoclosure () -> String) {
        guard level <= threshold else { return }
        writer.enqueue(level, message(), category: category)
    }

    /// Waits (at most `timeoutNanoseconds`) until every queued line has been written; for exit.
    func flush(timeoutNanoseconds: UInt64 = 2_000_000_000) {
        writer.flush(timeoutNanoseconds: timeoutNanoseconds)
    }

    /// One log line: `<N>message` for the journal, `timestamp level message` for people.
    static func format(_ level: Level, _ message: String, journal: Bool) -> [UInt8] {
        let line: String
        if journal {
            line = "<\(level.rawValue)>\(message)\n"
        } else {
            let (seconds, nanoseconds) = SystemProcess.wallClock()
            line =
                "\(RFC3339.format(seconds: seconds, nanoseconds: nanoseconds, fractionDigits: 3)) \(level) \(message)\n"
        }
        return Array(line.utf8)
    }
}
