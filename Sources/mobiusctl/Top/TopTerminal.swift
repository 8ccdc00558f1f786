import MobiusSystem

/// The terminal while `top` draws on it: the alternate screen with the cursor hidden, and the keys read as pressed
/// when stdin is the terminal too. `leave` gives it back as it was.
struct TopTerminal {
    private var settings: TerminalSettings?
    private var entered = true

    init(keys: Bool) {
        if keys { settings = try? FileDescriptor.standardInput.enterKeyMode() }
        // Alternate screen, cursor hidden.
        Self.write("\u{1B}[?1049h\u{1B}[?25l")
    }

    /// Draws the figures from the top left, clearing what the last frame left.
    func draw(_ figures: TopFigures, socket: String) {
        let size = FileDescriptor.standardOutput.windowSize ?? (rows: 24, columns: 80)
        let lines = TopScreen.lines(figures, socket: socket, rows: size.rows, columns: size.columns)
        Self.write("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J")
    }

    /// Gives the terminal back: the main screen, the cursor, the key settings it had.
    mutating func leave() {
        guard entered else { return }
        entered = false
        Self.write("\u{1B}[?25h\u{1B}[?1049l")
        if let settings { FileDescriptor.standardInput.restoreTerminal(settings) }
    }

    private static func write(_ text: String) {
        try? FileDescriptor.standardOutput.writeAllInterruptibly(Array(text.utf8))
    }
}
