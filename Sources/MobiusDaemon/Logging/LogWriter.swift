import MobiusSystem

/// The log's queue and the thread that writes it, so no thread that logs ever blocks on stderr.
///
/// Lines wait in a bounded queue; when it is full new lines are dropped and counted, and the writer reports the
/// count once it catches up. Lines with a category are rate-limited per category: `burst` lines per `window`
/// pass, the rest are counted, and when the window ends the writer writes one summary line with the count and the
/// last line held back. The writer sleeps without a timeout unless a summary is due, so an idle log costs nothing.
final class LogWriter: @unchecked Sendable {
    // @unchecked: every mutable property is touched only while holding `condition`'s mutex.

    /// How much the queue holds and how much each category may write.
    struct Limits: Sendable {
        var maxQueuedLines = 4096
        var burst = 5
        var windowNanoseconds: UInt64 = 10_000_000_000
    }

    private struct Category {
        var windowStart: UInt64
        var written = 0
        var suppressed = 0
        var level: DaemonLog.Level
        var lastSuppressed = ""
    }

    /// One queued line: the bytes for stderr, or (journal style) the journal record, with the stderr line made from
    /// `level` and `message` only if journald does not take the record.
    private struct Entry {
        var bytes: [UInt8]
        var record: [String]?
        var level: DaemonLog.Level
        var message: String
    }

    private let destination: FileDescriptor
    private let limits: Limits
    private let format: @Sendable (DaemonLog.Level, String) -> [UInt8]
    private let journalRecord: (@Sendable (DaemonLog.Level, String, LogFields?) -> [String])?
    private let condition = ThreadCondition()
    private var lines: [Entry] = []
    private var dropped = 0
    private var categories: [String: Category] = [:]
    /// When the earliest window with held-back lines ends (its summary is due).
    private var summaryDue: UInt64?
    private var writing = false
    private var started = false

    /// - Parameters:
    ///   - journalRecord: when given, each line is sent to journald as the record this makes, and written to
    ///     `destination` with `format` only when journald does not take it.
    ///   - format: a line's bytes for `destination`.
    init(
        destination: FileDescriptor, limits: Limits,
        journalRecord: (@Sendable (DaemonLog.Level, String, LogFields?) -> [String])? = nil,
        format: @escaping @Sendable (DaemonLog.Level, String) -> [UInt8]
    ) {
        self.destination = destination
        self.limits = limits
        self.journalRecord = journalRecord
        self.format = format
    }

    /// Queues a line (formatted here, on the caller's thread); never blocks.
    func enqueue(_ level: DaemonLog.Level, _ message: String, category: String?, fields: LogFields? = nil) {
        let startWriter = condition.withLock { () -> Bool in
            if let category {
                // Read under the lock: a `now` read before it could be older than a window another thread has just
                // started, and the subtraction below would underflow.
                let now = SystemProcess.monotonicNanoseconds()
                var state = categories[category] ?? Category(windowStart: now, level: level)
                if now - state.windowStart >= limits.windowNanoseconds {
                    appendSummary(category, state)
                    state = Category(windowStart: now, level: level)
                }
                guard state.written < limits.burst else {
                    state.suppressed += 1
                    state.level = level
                    state.lastSuppressed = message
                    categories[category] = state
                    let due = state.windowStart + limits.windowNanoseconds
                    summaryDue = min(summaryDue ?? due, due)
                    return false
                }
                state.written += 1
                categories[category] = state
            }
            guard lines.count < limits.maxQueuedLines else {
                dropped += 1
                return false
            }
            lines.append(entry(level, message, fields))
            defer { started = true }
            return !started
        }
        if startWriter { startThread() }
        condition.broadcast()
    }

    /// Waits up to `timeoutNanoseconds` until the queue is written.
    func flush(timeoutNanoseconds: UInt64) {
        let deadline = SystemProcess.monotonicNanoseconds() + timeoutNanoseconds
        condition.withLock {
            summarizeEndedWindows(now: .max)
            condition.broadcast()
            while started && (!lines.isEmpty || writing) {
                let now = SystemProcess.monotonicNanoseconds()
                guard now < deadline else { return }
                condition.wait(timeoutNanoseconds: deadline - now)
            }
        }
    }

    private func startThread() {
        do {
            try SystemThread.spawn(name: "mobiusd-log", stackSize: 256 << 10) { [self] in run() }
        } catch {
            // Without a writer thread the lines stay queued (bounded); nothing else to do about it.
            condition.withLock { started = false }
        }
    }

    /// A queue entry: a journal record, or the formatted line.
    private func entry(_ level: DaemonLog.Level, _ message: String, _ fields: LogFields? = nil) -> Entry {
        if let journalRecord {
            return Entry(bytes: [], record: journalRecord(level, message, fields), level: level, message: message)
        }
        return Entry(bytes: format(level, message), record: nil, level: level, message: message)
    }

    private func run() {
        while true {
            let batch = condition.withLock { () -> [Entry] in
                writing = false
                condition.broadcast()
                while lines.isEmpty && dropped == 0 {
                    let now = SystemProcess.monotonicNanoseconds()
                    if let due = summaryDue, due <= now {
                        summarizeEndedWindows(now: now)
                        continue
                    }
                    if let due = summaryDue {
                        condition.wait(timeoutNanoseconds: due - now)
                    } else {
                        condition.wait()
                    }
                }
                if dropped > 0 {
                    lines.append(entry(.warning, "\(dropped) log lines dropped: the log could not keep up"))
                    dropped = 0
                }
                writing = true
                defer { lines.removeAll(keepingCapacity: true) }
                return lines
            }
            for line in batch {
                if let record = line.record {
                    if JournalSender.send(record) { continue }
                    try? destination.writeAll(format(line.level, line.message))
                } else {
                    try? destination.writeAll(line.bytes)
                }
            }
        }
    }

    /// Writes summaries for windows that ended by `now`. Holds the lock.
    private func summarizeEndedWindows(now: UInt64) {
        summaryDue = nil
        for (name, state) in categories where state.suppressed > 0 {
            let due = state.windowStart + limits.windowNanoseconds
            if due <= now {
                appendSummary(name, state)
                categories[name] = nil
            } else {
                summaryDue = min(summaryDue ?? due, due)
            }
        }
    }

    /// Queues the summary of a category's window, if it held lines back. Holds the lock.
    private func appendSummary(_ name: String, _ state: Category) {
        guard state.suppressed > 0 else { return }
        let seconds = limits.windowNanoseconds / 1_000_000_000
        lines.append(
            entry(
                state.level,
                "\(state.suppressed) more \"\(name)\" lines held back in \(seconds) s; the last: \(state.lastSuppressed)"
            ))
    }
}
