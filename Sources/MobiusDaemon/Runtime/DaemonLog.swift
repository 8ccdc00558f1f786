import MobiusSystem

/// The daemon's log: lines on stderr, with sd-daemon `<N>` priority prefixes when stderr goes to the journal
/// (JOURNAL_STREAM is set), else with a timestamp for people reading a terminal.
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
    private let journal: Bool

    init(threshold: Level = .info) {
        self.threshold = threshold
        self.journal = SystemProcess.environment("JOURNAL_STREAM") != nil
    }

    func error(_ message: @autoclosure () -> String) { write(.error, message()) }
    func warning(_ message: @autoclosure () -> String) { write(.warning, message()) }
    func notice(_ message: @autoclosure () -> String) { write(.notice, message()) }
    func info(_ message: @autoclosure () -> String) { write(.info, message()) }
    func debug(_ message: @autoclosure () -> String) { write(.debug, message()) }

    func write(_ level: Level, _ message: String) {
        guard level <= threshold else { return }
        let line: String
        if journal {
            line = "<\(level.rawValue)>\(message)\n"
        } else {
            line = "\(Self.timestamp()) \(level) \(message)\n"
        }
        try? FileDescriptor.standardError.writeAll(Array(line.utf8))
    }

    private static func timestamp() -> String {
        let (seconds, nanoseconds) = SystemProcess.wallClock()
        return RFC3339.format(seconds: seconds, nanoseconds: nanoseconds, fractionDigits: 3)
    }
}
