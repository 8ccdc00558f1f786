import Foundation
import MobiusSystem

/// How a child process ended.
typealias DaemonExit = ChildProcess.Termination

/// Children for tests, started through MobiusSystem's `ChildProcess`: an empty signal mask and default dispositions
/// (what the daemon gives its plugins), stdin, stdout and stderr from files, and no other descriptor of the test process (tests
/// run in parallel, and a leaked client socket would keep a peer from ever seeing EOF).
enum DaemonSpawn {
    /// Starts `program` (looked up on PATH when it has no slash) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: variables set on top of the test's environment, or the whole environment when
    ///     `inheritEnvironment` is false.
    /// - Throws: `DaemonTestError` naming the program when it cannot be started.
    static func start(
        _ program: String, _ arguments: [String], stdinPath: String = "/dev/null", stdoutPath: String,
        stderrPath: String, workingDirectory: String? = nil, environment extra: [String: String] = [:],
        inheritEnvironment: Bool = true
    ) throws -> ChildProcess {
        var environment: [String: String]? = inheritEnvironment ? nil : extra
        if inheritEnvironment && !extra.isEmpty {
            environment = SystemProcess.environmentVariables().merging(extra) { $1 }
        }
        do {
            return try ChildProcess.spawn(
                [program] + arguments, standardInput: stdinPath, standardOutput: stdoutPath,
                standardError: stderrPath, workingDirectory: workingDirectory, environment: environment)
        } catch {
            throw DaemonTestError("cannot start \(program): \(error.reason)")
        }
    }

    /// Starts `program` as `start` does, with the test's environment, and returns its pid.
    static func spawn(
        _ program: String, _ arguments: [String], stdinPath: String = "/dev/null", stdoutPath: String,
        stderrPath: String
    ) throws -> Int32 {
        try start(program, arguments, stdinPath: stdinPath, stdoutPath: stdoutPath, stderrPath: stderrPath).processID
    }

    /// Reaps `pid` if it has exited; `nil` while it runs.
    static func reap(_ pid: Int32) -> DaemonExit? {
        try? ChildProcess(processID: pid).termination()
    }

    /// Waits up to `timeout` for `pid` to exit (polling, so a hung child cannot hang the test).
    static func wait(_ pid: Int32, timeout: Duration) -> DaemonExit? {
        ChildProcess(processID: pid).termination(within: timeout)
    }

    /// The absolute path of `program` on PATH, or `nil` (for tests that need a tool such as socat).
    static func which(_ program: String) -> String? {
        let path = SystemProcess.environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if FileSystem.isExecutable(candidate) { return candidate }
        }
        return nil
    }

    /// The directory that holds the test bundle (`/proc/self/exe`), where `swift build` puts the built binaries
    /// and fixtures too.
    static let buildDirectory: String = {
        let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().path
    }()

    /// A fixture executable built next to the test bundle (like mobiusd).
    static func fixture(_ name: String) -> String {
        "\(buildDirectory)/\(name)"
    }

    /// The built `mobiusd`: `$MOBIUSD_TEST_BINARY` when set (to test another build), else next to the test bundle,
    /// else `.build/debug` of the package that holds this file.
    static let mobiusdPath: String = {
        if let override = SystemProcess.environment("MOBIUSD_TEST_BINARY"), !override.isEmpty {
            return override
        }
        if FileSystem.isExecutable(fixture("mobiusd")) { return fixture("mobiusd") }
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileSystem.exists(directory.appendingPathComponent("Package.swift").path) {
                return directory.appendingPathComponent(".build/debug/mobiusd").path
            }
            directory.deleteLastPathComponent()
        }
        return ".build/debug/mobiusd"
    }()
}
