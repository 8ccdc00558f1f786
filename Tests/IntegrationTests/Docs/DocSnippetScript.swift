import Foundation
import MobiusSystem

/// Turns a shell block of the docs into the bash script DocSnippetTests runs, changing only what a script needs and
/// a person at a terminal does not:
/// - a command put in the background (`CMD &`) is waited for, as a person waits for it before typing the next
///   line: a daemon built by this package (mobiusd, a typed app) until it sends `READY=1` to the NOTIFY_SOCKET the
///   script listens on; anything else until it listens on a Unix socket or prints its first line on stdout
///   (systemd-socket-activate's socket, a stand-in's `ready`);
/// - `mobiusctl watch`, `monitor` and `log --follow` get Ctrl-C (SIGINT) once they have printed their first line, as
///   a person ends them (through `timeout -s INT --preserve-status`, its timer run out with SIGALRM, so the status
///   is mobiusctl's own);
/// - `swift build` lines are not run again: `swift test` built everything before this test;
/// - `.build/debug/` names the binaries under test, which are elsewhere when the tests run from a build with a scratch
///   path of its own (make sanitize's);
/// - in a `console` transcript only the `$ ` lines are commands; a command there may fail as the transcript shows,
///   but not as a usage error (2), not found (127) or not executable (126).
enum DocSnippetScript {
    /// Where the scripts keep HOME and XDG_RUNTIME_DIR: inside the private /tmp the test mounts for each run.
    static let home = "/tmp/doccheck-home"
    static let runtimeDirectory = "/tmp/doccheck-runtime"

    /// The script for `fence`; with `counter`, the embedded counter is started first. `xdgRuntimeDirectory` false
    /// runs it with XDG_RUNTIME_DIR unset.
    static func script(for fence: DocFence, xdgRuntimeDirectory: Bool) -> String {
        let console = fence.language == "console"
        var lines = [
            console ? "set -uo pipefail" : "set -euo pipefail",
            "cd \(quoted(DocCatalog.packageDirectory))",
            "unset MOBIUSD_SOCKET NOTIFY_SOCKET LISTEN_PID LISTEN_FDS LISTEN_FDNAMES JOURNAL_STREAM WATCHDOG_USEC"
                + " DBUS_SESSION_BUS_ADDRESS XDG_STATE_HOME XDG_CONFIG_HOME",
            "export HOME=\(home); mkdir -p \"$HOME\"",
            xdgRuntimeDirectory
                ? "export XDG_RUNTIME_DIR=\(runtimeDirectory); mkdir -m 0700 -p \"$XDG_RUNTIME_DIR\""
                : "unset XDG_RUNTIME_DIR",
            helpers,
        ]
        if console {
            lines.append(
                "trap 's=$?; case $s in 2|126|127) echo \"doccheck: exit $s: $BASH_COMMAND\" >&2; exit $s;; esac' ERR")
        }
        if fence.has("counter") { lines += background("mobiusd") }
        for line in logicalLines(fence.body, console: console) {
            if line.hasPrefix("swift build") {
                lines.append(": swift build is done by swift test before this test")
            } else if let command = backgroundCommand(withBuildUnderTest(line)) {
                lines += background(command)
            } else {
                lines.append(withBuildUnderTest(line))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `line` with `.build/debug/` naming the build under test, when that is not the package's `.build/debug`.
    static func withBuildUnderTest(_ line: String) -> String {
        guard let build = buildUnderTest else { return line }
        return line.replacingOccurrences(of: ".build/debug/", with: build + "/")
    }

    /// The directory of the binaries under test when it is not the package's `.build/debug`, else `nil`.
    private static let buildUnderTest: String? = {
        let debug = URL(fileURLWithPath: "\(DocCatalog.packageDirectory)/.build/debug").resolvingSymlinksInPath()
        let build = URL(fileURLWithPath: DaemonSpawn.buildDirectory).resolvingSymlinksInPath()
        return debug.path == build.path ? nil : build.path
    }()

    /// The block's commands, one per logical line (continuation lines joined; a console's `$ ` lines only).
    static func logicalLines(_ body: String, console: Bool) -> [String] {
        var result: [String] = []
        var pending = ""
        for raw in body.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(raw)
            if console && pending.isEmpty {
                guard line.hasPrefix("$ ") else { continue }
                line.removeFirst(2)
            }
            if line.hasSuffix("\\") {
                pending += line + "\n"
                continue
            }
            result.append(pending + line)
            pending = ""
        }
        if !pending.isEmpty { result.append(pending) }
        return result
    }

    /// `CMD` for a line `CMD &` (an optional ` # comment` after it), else `nil`.
    static func backgroundCommand(_ line: String) -> String? {
        var command = line
        if let comment = line.range(of: " #") { command = String(line[..<comment.lowerBound]) }
        command = command.trimmingCharacters(in: .whitespaces)
        guard command.hasSuffix("&"), !command.hasSuffix("&&") else { return nil }
        return String(command.dropLast()).trimmingCharacters(in: .whitespaces)
    }

    private static func background(_ command: String) -> [String] {
        let program = command.split(separator: " ").first.map { String($0.split(separator: "/").last ?? $0) } ?? ""
        if program != "mobiusctl" && FileSystem.isExecutable(DaemonSpawn.fixture(program)) {
            return ["__doccheck_n=$(__doccheck_readies); \(command) &", "__doccheck_wait_ready \"$__doccheck_n\" $!"]
        }
        return [
            "__doccheck_n=$(__doccheck_listening); \(command) > >(__doccheck_first_line) &",
            "__doccheck_wait_listening \"$__doccheck_n\" $!",
        ]
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private static let helpers = #"""
        __doccheck_flag=/tmp/.doccheck-first-line
        __doccheck_listening() { awk '$4 == "00010000"' /proc/net/unix | wc -l; }
        __doccheck_first_line() {
            local line
            if IFS= read -r line; then printf '%s\n' "$line"; fi
            : > "$__doccheck_flag"
            cat
        }
        __doccheck_wait_listening() {
            local i
            for ((i = 0; i < 3000; i++)); do
                if [ -e "$__doccheck_flag" ] || [ "$(__doccheck_listening)" -gt "$1" ] || ! kill -0 "$2" 2>/dev/null
                then
                    rm -f "$__doccheck_flag"
                    return 0
                fi
                sleep 0.01
            done
            echo "doccheck: the background command neither listened nor printed a line within 30 s" >&2
            return 1
        }
        export NOTIFY_SOCKET=/tmp/.doccheck-notify
        socat -u UNIX-RECV:"$NOTIFY_SOCKET" OPEN:/tmp/.doccheck-notified,creat,append &
        for ((__doccheck_i = 0; __doccheck_i < 3000; __doccheck_i++)); do
            [ -S "$NOTIFY_SOCKET" ] && break
            sleep 0.01
        done
        __doccheck_readies() { { grep -so 'READY=1' /tmp/.doccheck-notified || true; } | wc -l; }
        __doccheck_wait_ready() {
            local i
            for ((i = 0; i < 6000; i++)); do
                if [ "$(__doccheck_readies)" -gt "$1" ] || ! kill -0 "$2" 2>/dev/null; then return 0; fi
                sleep 0.01
            done
            echo "doccheck: the daemon sent no READY=1 within 60 s" >&2
            return 1
        }
        mobiusctl() {
            local word stream=0 out=/tmp/.doccheck-stream t i status=0
            for word in "$@"; do case "$word" in watch | monitor | --follow) stream=1 ;; esac; done
            if [ "$stream" = 0 ]; then
                command mobiusctl "$@"
                return
            fi
            rm -f "$out"
            timeout -s INT --preserve-status 600 "$(type -P mobiusctl)" "$@" > "$out" &
            t=$!
            for ((i = 0; i < 3000; i++)); do
                [ -s "$out" ] && break
                kill -0 "$t" 2>/dev/null || break
                sleep 0.01
            done
            kill -ALRM "$t" 2>/dev/null || true
            wait "$t" || status=$?
            cat "$out"
            return "$status"
        }
        """#
}
