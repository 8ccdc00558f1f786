extension FileDescriptor {
    /// Whether the descriptor refers to a terminal. The corresponding C function is `isatty`.
    package var isTerminal: Bool { Syscall.isTerminal(rawValue) }
}
