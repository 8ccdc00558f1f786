internal import Glibc

extension FileDescriptor {
    /// Whether the descriptor refers to a terminal. The corresponding C function is `isatty`.
    package var isTerminal: Bool { isatty(rawValue) == 1 }
}
