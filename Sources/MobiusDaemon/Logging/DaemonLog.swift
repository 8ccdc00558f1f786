import MobiusSystem

/// The daemon's log. Under systemd (`JOURNAL_STREAM` names the stderr it is writing to) records go to journald's
/// native socket with their priority and structured fields (`LogFields`), or, when that socket is missing, to stderr
/// as lines with sd-daemon `<N>` priority prefixes; otherwise stderr gets lines with a timestamp and the level, for
/// people.
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

    /// Where records go.
    enum Style: Sendable, Equatable {
        /// journald's native socket, with fields (`sd_journal_sendv`); stderr `<N>` lines if a send fails.
        case journal
        /// stderr lines with `<N>` prefixes, which journald's stream reads as priorities.
        case journalStream
        /// stderr lines with a timestamp and the level.
        case plain
    }

    let threshold: Level
    let style: Style
    private let writer: LogWriter

    /// - Parameters:
    ///   - threshold: the least severe level written.
    ///   - destination: where lines go (stderr; tests use a pipe).
    ///   - limits: the queue bound and the rate limit of `limited`.
    ///   - style: how records are written; by default from `JOURNAL_STREAM` and the journal socket (`style(for:)`).
    ///   - identifier: the journal's `SYSLOG_IDENTIFIER`: the program's name.
    init(
        threshold: Level = .info, destination: FileDescriptor = .standardError, limits: LogWriter.Limits = .init(),
        style: Style? = nil, identifier: String = "mobiusd"
    ) {
        self.threshold = threshold
        let style = style ?? Self.style(for: destination)
        self.style = style
        let record: (@Sendable (Level, String, LogFields?) -> [String])? =
            style == .journal
            ? { @Sendable level, message, fields in
                DaemonLog.journalRecord(level, message, fields, identifier: identifier)
            } : nil
        self.writer = LogWriter(destination: destination, limits: limits, journalRecord: record) { level, message in
            DaemonLog.format(level, message, journal: style != .plain)
        }
    }

    /// `journal` when `JOURNAL_STREAM` names `destination` (systemd connected it to the journal; a child that
    /// inherited the variable with another stderr does not match) and journald's socket exists, `journalStream` when
    /// only the first holds, else `plain`.
    static func style(for destination: FileDescriptor) -> Style {
        guard let stream = SystemProcess.environment("JOURNAL_STREAM"), !stream.isEmpty,
            stream == destination.deviceAndInode
        else { return .plain }
        return JournalSender.isAvailable ? .journal : .journalStream
    }

    func error(_ message: @autoclosure () -> String, fields: LogFields? = nil) { write(.error, message(), fields) }
    func warning(_ message: @autoclosure () -> String, fields: LogFields? = nil) { write(.warning, message(), fields) }
    func notice(_ message: @autoclosure () -> String, fields: LogFields? = nil) { write(.notice, message(), fields) }
    func info(_ message: @autoclosure () -> String, fields: LogFields? = nil) { write(.info, message(), fields) }
    func debug(_ message: @autoclosure () -> String, fields: LogFields? = nil) { write(.debug, message(), fields) }

    /// Queues a line; never blocks.
    func write(_ level: Level, _ message: String, _ fields: LogFields? = nil) {
        guard level <= threshold else { return }
        writer.enqueue(level, message, category: nil, fields: fields)
    }

    /// Queues a line that a client or plugin can cause at will: the first few per `category` in each window are
    /// written, the rest counted and reported in one summary line when the window ends.
    func limited(
        _ category: String, _ level: Level, _ message: @autoclosure () -> String, fields: LogFields? = nil
    ) {
        guard level <= threshold else { return }
        writer.enqueue(level, message(), category: category, fields: fields)
    }

    /// Waits (at most `timeoutNanoseconds`) until every queued line has been written; for exit.
    func flush(timeoutNanoseconds: UInt64 = 2_000_000_000) {
        writer.flush(timeoutNanoseconds: timeoutNanoseconds)
    }

    /// One journal record: the message, its priority, `SYSLOG_IDENTIFIER` (the program's name) and the structured
    /// fields, with control characters escaped as in a line.
    static func journalRecord(
        _ level: Level, _ message: String, _ fields: LogFields?, identifier: String = "mobiusd"
    ) -> [String] {
        ["MESSAGE=\(escaped(message))", "PRIORITY=\(level.rawValue)", "SYSLOG_IDENTIFIER=\(identifier)"]
            + (fields?.journalFields.map(escaped) ?? [])
    }

    /// One log line: `<N>message` for the journal, `timestamp level message` for people, the message `escaped`.
    static func format(_ level: Level, _ message: String, journal: Bool) -> [UInt8] {
        let text = escaped(message)
        let line: String
        if journal {
            line = "<\(level.rawValue)>\(text)\n"
        } else {
            let (seconds, nanoseconds) = SystemProcess.wallClock()
            line = "\(RFC3339.format(seconds: seconds, nanoseconds: nanoseconds, fractionDigits: 3)) \(level) \(text)\n"
        }
        return Array(line.utf8)
    }

    /// `message` with every control character escaped, whoever wrote it (a plugin, a client, a peer on the bus):
    /// `\n`, `\r` and `\t` as those two characters, the other C0 controls and DEL as `\xNN`, the C1 controls as
    /// `\u00NN`. A message can then never start a line of its own with a priority prefix of its choosing, and journald
    /// never stores a record as binary because of a NUL or an escape sequence. (Bytes that are not UTF-8 never get
    /// this far: `text` escapes those of other programs when it turns them into text.)
    static func escaped(_ message: String) -> String {
        // 0xC2 leads every C1 control's UTF-8 (and a few printable characters, which the loop keeps).
        guard message.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }) else { return message }
        var escaped = ""
        escaped.reserveCapacity(message.utf8.count + 16)
        for scalar in message.unicodeScalars {
            switch scalar.value {
            case 0x0A: escaped += "\\n"
            case 0x0D: escaped += "\\r"
            case 0x09: escaped += "\\t"
            case 0..<0x20, 0x7F: escaped += "\\x" + hexByte(scalar.value)
            case 0x80..<0xA0: escaped += "\\u00" + hexByte(scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// `bytes` from another program (a plugin's stdout or stderr) as text for the log: valid UTF-8 as it is, each
    /// byte that is not part of valid UTF-8 as `\xNN`.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var text = ""
        var start = bytes.startIndex
        next: while start < bytes.endIndex {
            // Only a whole character validates: its shorter prefixes are incomplete.
            for length in 1...min(4, bytes.endIndex - start) {
                if let character = String(validating: bytes[start..<start + length], as: UTF8.self) {
                    text += character
                    start += length
                    continue next
                }
            }
            text += "\\x" + hexByte(UInt32(bytes[start]))
            start += 1
        }
        return text
    }

    private static func hexByte(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }
}
