import MobiusSystem

extension DaemonSpawn {
    /// Whether process `pid` exists and has not ended (a zombie waiting to be reaped counts as ended).
    static func processExists(_ pid: Int32) -> Bool {
        guard let stat = try? FileSystem.read("/proc/\(pid)/stat") else { return false }
        // The state follows the command name in parentheses, which may itself contain spaces.
        guard let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.count else { return false }
        return stat[close + 2] != UInt8(ascii: "Z") && stat[close + 2] != UInt8(ascii: "X")
    }
}
