internal import CSystemd
import MobiusSystem

/// Log records sent straight to journald's native socket, with structured fields, through `sd_journal_sendv`.
enum JournalSender {
    /// journald's native protocol socket; `sd_journal_sendv` always sends there.
    static let socketPath = "/run/systemd/journal/socket"

    /// Whether journald's socket exists.
    static var isAvailable: Bool { FileSystem.isSocket(socketPath) }

    /// Sends one record of `KEY=value` fields (values may hold newlines); `false` when journald did not take it.
    /// The corresponding C function is `sd_journal_sendv`.
    static func send(_ fields: [String]) -> Bool {
        var storage: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            let start = storage.count
            storage.append(contentsOf: field.utf8)
            ranges.append(start..<storage.count)
        }
        return storage.withUnsafeMutableBytes { bytes in
            let vectors = ranges.map { range in
                iovec(iov_base: bytes.baseAddress.map { $0 + range.lowerBound }, iov_len: range.count)
            }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) } == 0
        }
    }
}
