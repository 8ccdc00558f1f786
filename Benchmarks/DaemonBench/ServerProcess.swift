import Glibc

/// A server the benchmark started: spawned with stdout discarded and stderr in a log file, ready once its socket
/// accepts a connection, stopped with SIGTERM.
struct ServerProcess {
    let kind: ServerKind
    let pid: pid_t
    let socketPath: String
    let logPath: String
    /// Spawn to first accepted connection, polled every 1 ms.
    let readyNanoseconds: UInt64

    /// Spawns `arguments[0]` (looked up on PATH when it has no slash) and waits until `socketPath` accepts.
    static func start(
        kind: ServerKind, arguments: [String], socketPath: String, logPath: String, timeoutSeconds: Double = 10
    ) throws(BenchError) -> ServerProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = MonotonicClock.nanoseconds()
        let result = posix_spawnp(&pid, arguments[0], &actions, nil, argv, Environment.pointer)
        guard result == 0 else {
            throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(result)))")
        }
        let deadline = start + UInt64(timeoutSeconds * 1e9)
        while true {
            if let stream = try? UnixStream.connect(path: socketPath) {
                let ready = MonotonicClock.nanoseconds() - start
                stream.close()
                return ServerProcess(
                    kind: kind, pid: pid, socketPath: socketPath, logPath: logPath, readyNanoseconds: ready)
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                throw BenchError(
                    "\(arguments[0]) exited (status \(status)) before listening; its stderr:\n\(Self.tail(of: logPath))"
                )
            }
            if MonotonicClock.nanoseconds() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                throw BenchError("\(arguments[0]) did not accept on \(socketPath) within \(timeoutSeconds) s")
            }
            MonotonicClock.sleep(microseconds: 1000)
        }
    }

    /// The last lines of a small text file (a server's stderr log).
    static func tail(of path: String, lines: Int = 10) -> String {
        guard let file = fopen(path, "r") else { return "(no \(path))" }
        defer { fclose(file) }
        var kept: [String] = []
        var line = [CChar](repeating: 0, count: 1024)
        while fgets(&line, Int32(line.count), file) != nil {
            kept.append(String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            if kept.count > lines { kept.removeFirst() }
        }
        return kept.joined()
    }

    /// VmRSS from /proc/PID/status, in kB.
    func residentKilobytes() throws(BenchError) -> Int {
        let path = "/proc/\(pid)/status"
        guard let file = fopen(path, "r") else { throw BenchError.system("open", path) }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("VmRSS:") else { continue }
            let digits = text.dropFirst(6).filter { $0.isNumber }
            if let kilobytes = Int(digits) { return kilobytes }
        }
        throw BenchError("no VmRSS in \(path)")
    }

    /// SIGTERM, then waits for the exit (SIGKILL after 5 s).
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<5000 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            MonotonicClock.sleep(microseconds: 1000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }
}
