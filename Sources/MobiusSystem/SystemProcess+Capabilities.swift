extension SystemProcess {
    /// A capability a root daemon needs to run and end plugins as other users (capabilities(7)).
    package enum Capability: Int, Sendable, CaseIterable, CustomStringConvertible {
        /// Signal processes of other users (a plugin's process group).
        case kill = 5
        /// setgroups and setgid.
        case setGID = 6
        /// setuid.
        case setUID = 7

        package var description: String {
            switch self {
            case .kill: "CAP_KILL"
            case .setGID: "CAP_SETGID"
            case .setUID: "CAP_SETUID"
            }
        }
    }

    /// The capabilities this process has in its effective set, from `CapEff` in /proc/self/status (all of them
    /// when that cannot be read, so a check never refuses on a guess).
    package static func effectiveCapabilities() -> Set<Capability> {
        guard let text = try? FileSystem.read("/proc/self/status") else { return Set(Capability.allCases) }
        let key = Array("CapEff:".utf8)
        for line in text.split(separator: UInt8(ascii: "\n")) where line.starts(with: key) {
            let value = line.dropFirst(key.count).split { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.first
            guard let value, let mask = UInt64(String(decoding: value, as: UTF8.self), radix: 16) else { break }
            return Set(Capability.allCases.filter { mask & (1 << UInt64($0.rawValue)) != 0 })
        }
        return Set(Capability.allCases)
    }
}
