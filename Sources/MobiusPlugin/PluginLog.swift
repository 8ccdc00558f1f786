import MobiusSystem
import Synchronization

/// Log lines on stderr, which mobiusd copies into its own log tagged with the plugin's name.
///
/// Each line starts with the sd-daemon priority prefix `<0>`..`<7>` (docs/protocol.md 2.1). A message with line breaks
/// becomes several lines with the same priority; a line longer than ``maxLineBytes`` is cut there and marked, so
/// one log call can never flood the daemon's log with a single huge line. Safe from any thread.
public enum PluginLog {
    /// The sd-daemon priorities, most severe first.
    public enum Priority: Int, Sendable, CaseIterable {
        /// System is unusable.
        case emergency = 0
        /// Action must be taken immediately.
        case alert = 1
        /// Critical conditions.
        case critical = 2
        /// Error conditions.
        case error = 3
        /// Warning conditions.
        case warning = 4
        /// Normal but significant.
        case notice = 5
        /// Informational.
        case info = 6
        /// Debug-level messages.
        case debug = 7
    }

    /// The longest line written, in bytes, not counting the priority prefix and the newline.
    public static let maxLineBytes = 4096

    private static let lock = Mutex(())

    /// Writes `message` at `priority`.
    public static func log(_ priority: Priority, _ message: String) {
        let bytes = formatted(priority, message)
        lock.withLock { _ in
            try? FileDescriptor.standardError.writeAll(bytes)
        }
    }

    /// Writes `message` at priority `error` (3).
    public static func error(_ message: String) { log(.error, message) }

    /// Writes `message` at priority `warning` (4).
    public static func warning(_ message: String) { log(.warning, message) }

    /// Writes `message` at priority `notice` (5).
    public static func notice(_ message: String) { log(.notice, message) }

    /// Writes `message` at priority `info` (6).
    public static func info(_ message: String) { log(.info, message) }

    /// Writes `message` at priority `debug` (7).
    public static func debug(_ message: String) { log(.debug, message) }

    /// The bytes `log` writes: one prefixed line per line of `message`, each cut at ``maxLineBytes``.
    static func formatted(_ priority: Priority, _ message: String) -> [UInt8] {
        var output: [UInt8] = []
        let prefix = Array("<\(priority.rawValue)>".utf8)
        for line in message.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            var text = Array(line)
            if text.last == UInt8(ascii: "\r") { text.removeLast() }
            output += prefix
            if text.count > maxLineBytes {
                let cut = validPrefixLength(text, limit: maxLineBytes)
                output += text[..<cut]
                output += Array("… [\(text.count - cut) more bytes cut]".utf8)
            } else {
                output += text
            }
            output.append(UInt8(ascii: "\n"))
        }
        return output
    }

    /// The length of the longest prefix of `bytes` up to `limit` that does not split a UTF-8 sequence.
    static func validPrefixLength(_ bytes: [UInt8], limit: Int) -> Int {
        var cut = min(limit, bytes.count)
        // Step back over continuation bytes (10xxxxxx) to the start of the sequence that would be split.
        while cut > 0 && cut < bytes.count && bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
        return cut
    }
}
