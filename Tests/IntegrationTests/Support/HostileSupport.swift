import Foundation
import Glibc
import MobiusSystem
import MobiusTestSupport

/// What /proc says about a process, and small file-system and socket probes the hostile tests need.
enum HostileProbe {
    /// User plus system CPU time of the whole process (all threads), in seconds.
    static func cpuSeconds(pid: pid_t) throws -> Double {
        do throws(SystemError) {
            return Double(try ProcessUsage.sample(processID: pid).cpuNanoseconds) / 1e9
        } catch {
            throw DaemonTestError("cannot read the CPU time of pid \(pid): \(error.reason)")
        }
    }

    /// The soft and hard "Max open files" of a process, from /proc/PID/limits.
    static func openFileLimits(pid: pid_t) throws -> (soft: String, hard: String) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8) else {
            throw DaemonTestError("cannot read /proc/\(pid)/limits")
        }
        for line in text.split(separator: "\n") where line.hasPrefix("Max open files") {
            let fields = line.dropFirst("Max open files".count).split(separator: " ")
            if fields.count >= 2 { return (String(fields[0]), String(fields[1])) }
        }
        throw DaemonTestError("no \"Max open files\" in /proc/\(pid)/limits:\n\(text)")
    }

    /// Permission bits (including setuid/setgid/sticky), owner and group of `path`; `nil` when it is missing.
    static func fileStatus(_ path: String) -> (mode: UInt32, owner: UInt32, group: UInt32)? {
        guard let status = try? FileSystem.status(path, followingLinks: true) else { return nil }
        return (status.permissions, status.owner, status.group)
    }

    /// Connects to the Unix socket at `path` without blocking: the descriptor, or `nil` when the daemon's backlog
    /// is full (EAGAIN) or the connect fails otherwise. The caller closes it. MobiusSystem connects only blocking,
    /// which would wait here for room in the backlog.
    static func connectWithoutBlocking(_ path: String) -> FileDescriptor? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8) + [0])
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            FileDescriptor(rawValue: fd).close()
            return nil
        }
        return FileDescriptor(rawValue: fd)
    }

    /// Whether the test process runs as root (CI does): needed to chown to other users and to run as one.
    static var isRoot: Bool { geteuid() == 0 }
}

/// JSON text for deep and long inputs, built as strings so the test itself never recurses.
enum HostileJSON {
    /// A JSON Pointer of `count` tokens, each `token`: `/a/a/a…`.
    static func pointer(tokens count: Int, token: String = "a") -> String {
        String(repeating: "/" + token, count: count)
    }

    /// Arrays nested `depth` deep around nothing: `[[[…]]]`.
    static func nestedArrays(depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    /// Objects nested `depth` deep through the key `key`: `{"b":{"b":{}}}` for depth 3.
    static func nestedObjects(depth: Int, key: String = "b") -> String {
        String(repeating: "{\"\(key)\":", count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
    }

    /// A store `set` event line.
    static func set(_ path: String, _ value: String) -> String {
        #"{"type":"set","path":"\#(path)","value":\#(value)}"#
    }
}
