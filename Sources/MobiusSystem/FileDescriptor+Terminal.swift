extension FileDescriptor {
    /// Whether the descriptor refers to a terminal. The corresponding C function is `isatty`.
    package var isTerminal: Bool { Syscall.isTerminal(rawValue) }

    /// Lets each key be read as it is pressed (no line editing, no echo; Ctrl-C still raises SIGINT) and returns
    /// the settings to give back with `restoreTerminal`. The corresponding C functions are `tcgetattr` and
    /// `tcsetattr`.
    package func enterKeyMode() throws(SystemError) -> TerminalSettings {
        TerminalSettings(bytes: try Syscall.enterKeyMode(rawValue).get("tcsetattr", description))
    }

    /// Gives the terminal back settings `enterKeyMode` returned; a terminal that is gone is left alone. The
    /// corresponding C function is `tcsetattr`.
    package func restoreTerminal(_ settings: TerminalSettings) {
        _ = Syscall.setTerminalSettings(rawValue, settings.bytes)
    }

    /// The terminal's size, or `nil` when the descriptor is not a terminal or reports no size. The corresponding C
    /// call is `ioctl(TIOCGWINSZ)`.
    package var windowSize: (rows: Int, columns: Int)? {
        guard case .success(let size) = Syscall.windowSize(rawValue), size.rows > 0, size.columns > 0 else {
            return nil
        }
        return size
    }
}

/// A terminal's settings as they were before `enterKeyMode`.
package struct TerminalSettings: Sendable {
    fileprivate let bytes: [UInt8]
}
