import Foundation
import Glibc
import MobiusSystem

/// A daemon started through another program: a wrapper that changes its limits or user (`prlimit`, `setpriv`,
/// which exec the daemon, so the pid stays the daemon's) or a fixture app built on the daemon library.
///
/// Killed (SIGKILL) when released if a test did not stop it.
final class HostileDaemon {
    let scratch: DaemonScratch
    let socketPath: String
    let pid: pid_t
    private(set) var exit: DaemonExit?

    /// Starts `program arguments…` and waits until `socketPath` accepts connections; throws with the daemon's
    /// stderr if it exits first or does not listen within `startTimeout`.
    ///
    /// - Parameter environment: the complete environment, or `nil` to inherit the test's.
    init(
        scratch: DaemonScratch, program: String, arguments: [String], socketPath: String,
        environment: [String: String]? = nil, startTimeout: Duration = .seconds(15)
    ) throws {
        self.scratch = scratch
        self.socketPath = socketPath
        pid = try DaemonSpawn.spawn(
            program, arguments, stdoutPath: scratch.file("daemon.stdout"), stderrPath: scratch.file("daemon.stderr"),
            environment: environment ?? [:], inheritEnvironment: environment == nil)
        let deadline = ContinuousClock.now + startTimeout
        while true {
            if let probe = try? DaemonLineClient(path: socketPath) {
                probe.shutdownWrite()
                _ = try? probe.readUntilEndOfFile(timeout: .seconds(5))
                probe.close()
                return
            }
            if !isRunning {
                throw DaemonTestError("\(program) exited before listening (\(exit!)); stderr:\n\(standardError)")
            }
            if ContinuousClock.now >= deadline {
                throw DaemonTestError("no daemon on \(socketPath) within \(startTimeout); stderr:\n\(standardError)")
            }
            usleep(2_000)
        }
    }

    /// Everything the daemon has written to stderr so far.
    var standardError: String { scratch.read("daemon.stderr") }

    /// Whether the process still runs (reaps it if it has exited).
    var isRunning: Bool {
        if exit != nil { return false }
        exit = DaemonSpawn.reap(pid)
        return exit == nil
    }

    /// A new client connection to the daemon's socket.
    func connect() throws -> DaemonLineClient {
        try DaemonLineClient(path: socketPath)
    }

    /// SIGTERM, then waits for the exit (SIGKILL after `timeout`).
    func terminate(timeout: Duration = .seconds(10)) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        if let ended = DaemonSpawn.wait(pid, timeout: timeout) {
            exit = ended
            return
        }
        kill(pid, SIGKILL)
        exit = DaemonSpawn.wait(pid, timeout: .seconds(5))
    }

    deinit {
        if exit == nil {
            kill(pid, SIGKILL)
            _ = DaemonSpawn.wait(pid, timeout: .seconds(5))
        }
    }
}

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
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt32(info.st_mode) & 0o7777, info.st_uid, info.st_gid)
    }

    /// Connects to the Unix socket at `path` without blocking: the descriptor, or `nil` when the daemon's backlog
    /// is full (EAGAIN) or the connect fails otherwise. The caller closes it.
    static func connectWithoutBlocking(_ path: String) -> Int32? {
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
            Glibc.close(fd)
            return nil
        }
        return fd
    }

    /// Whether the test process runs as root (CI does): needed to chown to other users and to run as one.
    static var isRoot: Bool { geteuid() == 0 }

    /// A fixture executable built next to the test bundle (like mobiusd; see DaemonSpawn.mobiusdPath).
    static func fixture(_ name: String) -> String {
        let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent(name).path
    }
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
