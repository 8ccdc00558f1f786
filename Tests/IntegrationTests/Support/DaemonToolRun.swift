import MobiusSystem
import MobiusTestSupport

/// A short-lived command run to completion: its exit and its output.
struct DaemonToolRun {
    let exit: DaemonExit
    let stdout: String
    let stderr: String

    /// Runs `program` with `stdin` as its input; fails the test (throws) if it does not end within `timeout`.
    static func run(
        _ program: String, _ arguments: [String], stdin: [UInt8] = [], workingDirectory: String? = nil,
        environment: [String: String] = [:], timeout: Duration = .seconds(20)
    ) throws -> DaemonToolRun {
        let scratch = DaemonScratch()
        let input = scratch.file("stdin")
        do {
            let fd = try FileDescriptor.create(input)
            defer { fd.close() }
            try fd.writeAll(stdin)
        } catch {
            throw DaemonTestError("cannot write the input of \(program): \(error.reason)")
        }
        let child = try DaemonSpawn.start(
            program, arguments, stdinPath: input, stdoutPath: scratch.file("stdout"),
            stderrPath: scratch.file("stderr"), workingDirectory: workingDirectory, environment: environment)
        guard let exit = child.termination(within: timeout) else {
            try? child.send(.kill)
            _ = child.termination(within: .seconds(5))
            throw DaemonTestError(
                "\(program) \(arguments.joined(separator: " ")) did not finish within \(TestTime.scaled(timeout)); stdout so far: "
                    + scratch.read("stdout"))
        }
        return DaemonToolRun(exit: exit, stdout: scratch.read("stdout"), stderr: scratch.read("stderr"))
    }

    /// Runs the built `mobiusd` with `arguments` (for the command-line tests: `--check`, `--help`…).
    static func mobiusd(_ arguments: [String], workingDirectory: String? = nil) throws -> DaemonToolRun {
        try run(DaemonSpawn.mobiusdPath, arguments, workingDirectory: workingDirectory)
    }

    /// stdout split into lines (without the empty piece after the final newline).
    var stdoutLines: [String] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }
}
