import MobiusSystem

/// Where mobiusctl's text goes: stdout for data, stderr for notes and errors, each line written at once so
/// streams show up as they arrive.
struct Console {
    /// Whether replies are rendered for people (else passed through as JSON lines).
    let human: Bool

    /// Picks human or JSON output from `--json`/`--human`, else from whether stdout is a terminal.
    init(mode: Invocation.OutputMode) {
        switch mode {
        case .json: human = false
        case .human: human = true
        case .automatic: human = FileDescriptor.standardOutput.isTerminal
        }
    }

    /// Writes `text` and a newline to stdout. A closed stdout (a reader that went away) ends the process.
    func out(_ text: String) {
        out(Array(text.utf8))
    }

    /// Writes raw bytes and a newline to stdout.
    func out(_ bytes: some Collection<UInt8>) {
        var line = Array(bytes)
        line.append(UInt8(ascii: "\n"))
        do {
            try FileDescriptor.standardOutput.writeAllInterruptibly(line)
        } catch {
            // Nobody reads our output any more (e.g. `mobiusctl watch | head -1`): stop like `cat` would. A write
            // cut short by Ctrl-C fails only once the interrupt is pending, and then ends quietly.
            SystemProcess.exit(InterruptRequest.isPending ? ExitStatus.success : ExitStatus.unreachable)
        }
    }

    /// Writes `mobiusctl: text` to stderr.
    func error(_ text: String) {
        note("mobiusctl: " + text)
    }

    /// Writes `text` to stderr as it is.
    func note(_ text: String) {
        try? FileDescriptor.standardError.writeAllInterruptibly(Array((text + "\n").utf8))
    }
}
