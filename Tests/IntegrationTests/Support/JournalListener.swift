import MobiusSystem
import MobiusTestSupport

/// Stands in for journald's native socket: a datagram socket the test owns, bind-mounted over
/// /run/systemd/journal inside the daemon's own mount namespace (`launcher`), so the daemon's `sd_journal_sendv`
/// reaches the test and nothing on the host changes.
final class JournalListener {
    let directory: String
    let socket: DatagramSocket
    /// Every record received so far, as its fields.
    private(set) var records: [[String: String]] = []

    init(scratch: DaemonScratch) throws {
        directory = scratch.file("journal")
        try FileSystem.makeDirectories(directory, mode: 0o755)
        socket = try DatagramSocket(binding: "\(directory)/socket")
    }

    deinit { socket.close() }

    /// Runs the program in a private mount namespace where /run is a fresh tmpfs (so the directories made in it
    /// never reach the host's /run, which may lack /run/systemd; `--no-mtab` keeps mount's own notes out of the
    /// host's /run/mount), with the test's socket directory as
    /// /run/systemd/journal when `withSocket` (else no journal socket at all), and `JOURNAL_STREAM` set to its
    /// stderr, as systemd sets it.
    static func launcher(journalDirectory: String?) -> [String] {
        let bind = journalDirectory.map { "mount --no-mtab --bind '\($0)' /run/systemd/journal && " } ?? ""
        let script =
            "mount --no-mtab -t tmpfs tmpfs /run && mkdir -p /run/systemd/journal && \(bind)"
            + "export JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) && exec \"$0\" \"$@\""
        return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script]
    }

    /// Receives records until one satisfies `wanted`, or throws after `timeout`.
    @discardableResult
    func next(timeout: Duration = .seconds(15), where wanted: ([String: String]) -> Bool) throws -> [String: String] {
        let deadline = SystemProcess.monotonicNanoseconds() + UInt64(timeout.components.seconds) * 1_000_000_000
        while true {
            let now = SystemProcess.monotonicNanoseconds()
            guard now < deadline, let bytes = try socket.receive(maxBytes: 65536, timeoutNanoseconds: deadline - now)
            else {
                throw DaemonTestError("no such journal record within \(timeout); got \(records)")
            }
            let record = Self.parse(bytes)
            records.append(record)
            if wanted(record) { return record }
        }
    }

    /// journald's native format: `KEY=value\n`, or `KEY\n` + a 64-bit little-endian length + the value + `\n` for
    /// values that hold a newline.
    static func parse(_ bytes: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        var index = 0
        while index < bytes.count {
            guard let end = bytes[index...].firstIndex(where: { $0 == 0x0A || $0 == 0x3D }) else { break }
            let key = String(decoding: bytes[index..<end], as: UTF8.self)
            if bytes[end] == 0x3D {
                let valueEnd = bytes[(end + 1)...].firstIndex(of: 0x0A) ?? bytes.count
                fields[key] = String(decoding: bytes[(end + 1)..<valueEnd], as: UTF8.self)
                index = valueEnd + 1
            } else {
                guard end + 9 <= bytes.count else { break }
                let length = (0..<8).reduce(0) { $0 | Int(bytes[end + 1 + $1]) << (8 * $1) }
                let start = end + 9
                guard start + length <= bytes.count else { break }
                fields[key] = String(decoding: bytes[start..<(start + length)], as: UTF8.self)
                index = start + length + 1
            }
        }
        return fields
    }
}
