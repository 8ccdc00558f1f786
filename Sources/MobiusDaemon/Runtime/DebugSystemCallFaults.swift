import MobiusSystem
import Synchronization

/// `MOBIUSD_DEBUG_SYSCALL_FAULTS`: fails chosen system calls of a running daemon through MobiusSystem's fault seam,
/// so that a soak can inject storage failures the disk would not produce on demand (docs/reliability.md, "Soak").
/// Only a debug build honours it; a release build logs that it ignores it. The variable comes from whoever starts
/// the daemon, never from a socket, a plugin or the config file.
///
/// The value is a comma-separated list of `CALL:ERRNO:N`: every Nth call of the wrapped call CALL (`fdatasync`,
/// `pwrite`, … as `SystemCall` names them) fails with ERRNO (`EIO`, `ENOSPC`, `EFBIG` or a number), counting from
/// the start of the process. `fdatasync:EIO:20` fails every 20th fdatasync, the kernel's background ones included.
enum DebugSystemCallFaults {
    static let variable = "MOBIUSD_DEBUG_SYSCALL_FAULTS"

    /// One entry of the variable.
    struct Entry: Sendable, CustomStringConvertible {
        let call: SystemCall
        let errno: Errno
        let every: Int

        var description: String { "1 in \(every) \(call.rawValue) calls fails with errno \(errno.rawValue) (\(errno))" }
    }

    /// Installs the variable's faults for the life of the process, or logs why not. Throws for a malformed value,
    /// naming the entry.
    static func installFromEnvironment(log: DaemonLog) throws(ConfigError) {
        guard let value = SystemProcess.environment(variable), !value.isEmpty else { return }
        #if DEBUG
            let entries = try parse(value)
            let counts = Mutex([Int](repeating: 0, count: entries.count))
            _ = SystemCallFaults.install { site in
                counts.withLock { counts in
                    for (index, entry) in entries.enumerated() where entry.call == site.call {
                        counts[index] += 1
                        if counts[index] % entry.every == 0 { return .fail(entry.errno) }
                    }
                    return nil
                }
            }
            for entry in entries { log.notice("\(variable): \(entry)") }
        #else
            log.warning("\(variable) is set but ignored: only a debug build injects system call faults")
        #endif
    }

    static func parse(_ value: String) throws(ConfigError) -> [Entry] {
        var entries: [Entry] = []
        for text in value.split(separator: ",", omittingEmptySubsequences: false) {
            let fields = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3, let call = SystemCall(rawValue: fields[0]) else {
                throw ConfigError(key: variable, "\"\(text)\" is not CALL:ERRNO:N with CALL a wrapped call (fdatasync)")
            }
            guard let errno = errnoNames[fields[1]] ?? Int32(fields[1]).map(Errno.init(rawValue:)), errno.rawValue > 0
            else {
                throw ConfigError(
                    key: variable, "\"\(fields[1])\" in \"\(text)\" is not EIO, ENOSPC, EFBIG or a number")
            }
            guard let every = Int(fields[2]), every >= 1 else {
                throw ConfigError(
                    key: variable, "\"\(fields[2])\" in \"\(text)\" is not a whole number of calls, 1 or more")
            }
            entries.append(Entry(call: call, errno: errno, every: every))
        }
        return entries
    }

    private static let errnoNames: [String: Errno] = ["EIO": .ioError, "ENOSPC": .noSpace, "EFBIG": .fileTooLarge]
}
