import Foundation
import MobiusSystem
import MobiusTestSupport
import Testing

/// A tmux server of the test's own (its socket in a scratch directory) with one pane running `command` under
/// `/bin/sh`: a real terminal for programs that draw on one. `keys` and `capture` are what a user would type and see.
final class TmuxPane {
    let scratch = DaemonScratch()
    private let tmux: String
    private let socket: String

    init(_ command: String, columns: Int = 100, rows: Int = 30) throws {
        tmux = try #require(DaemonSpawn.which("tmux"), "tmux (Debian package tmux)")
        socket = scratch.file("tmux.sock")
        try run(["new-session", "-d", "-x", String(columns), "-y", String(rows), "/bin/sh", "-c", command])
    }

    /// The pane's text as shown now.
    func capture() throws -> String {
        try run(["capture-pane", "-p"]).stdout
    }

    /// Types `keys` (tmux key names: `q`, `C-c`).
    func keys(_ keys: String...) throws {
        try run(["send-keys"] + keys)
    }

    /// The pid of the pane's shell.
    func shellPID() throws -> Int32 {
        let text = try run(["display-message", "-p", "#{pane_pid}"]).stdout
        return try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), "pane pid: \(text)")
    }

    /// Waits until the pane shows `text`; throws with what it shows after `timeout`.
    func waitFor(_ text: String, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + TestTime.scaled(timeout)
        while true {
            let shown = try capture()
            if shown.contains(text) { return }
            guard ContinuousClock.now < deadline else {
                throw DaemonTestError("the pane never showed \(text.debugDescription); it shows:\n\(shown)")
            }
            try? SystemClock.sleep(nanoseconds: 50_000_000)
        }
    }

    @discardableResult
    private func run(_ arguments: [String]) throws -> DaemonToolRun {
        let result = try DaemonToolRun.run(tmux, ["-S", socket] + arguments, environment: ["TERM": "xterm-256color"])
        guard result.exit == .exited(0) else {
            throw DaemonTestError("tmux \(arguments.joined(separator: " ")): \(result.exit) \(result.stderr)")
        }
        return result
    }

    deinit {
        _ = try? DaemonToolRun.run(tmux, ["-S", socket, "kill-server"])
    }
}
