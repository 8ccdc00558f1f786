/// The socket mobiusctl connects to and how that path was chosen, for the hint when nobody answers there.
struct SocketChoice: Equatable {
    /// Where the path came from, in order of precedence.
    enum Origin: Equatable {
        /// `--socket PATH`.
        case flag
        /// The `MOBIUSD_SOCKET` environment variable.
        case environment
        /// The default app's default path under `$XDG_RUNTIME_DIR`.
        case runtimeDirectory
        /// The default app's default path when `XDG_RUNTIME_DIR` is unset or empty: `/tmp/mobiusd-<uid>`.
        case fallback
    }

    let path: String
    let origin: Origin

    /// `--socket`, else `$MOBIUSD_SOCKET`, else `$XDG_RUNTIME_DIR/mobiusd/counter.sock`, else
    /// `/tmp/mobiusd-<uid>/counter.sock`, the paths mobiusd itself uses for the counter (empty variables count as
    /// unset, as they do for mobiusd).
    static func choose(flag: String?, environment: [String: String], userID: UInt32) -> SocketChoice {
        if let flag { return SocketChoice(path: flag, origin: .flag) }
        if let path = environment["MOBIUSD_SOCKET"], !path.isEmpty {
            return SocketChoice(path: path, origin: .environment)
        }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return SocketChoice(path: "\(runtime)/mobiusd/counter.sock", origin: .runtimeDirectory)
        }
        return SocketChoice(path: "/tmp/mobiusd-\(userID)/counter.sock", origin: .fallback)
    }

    /// One line saying how the path was chosen and how to choose another.
    var hint: String {
        switch origin {
        case .flag:
            return "hint: the path was given with --socket"
        case .environment:
            return "hint: the path comes from MOBIUSD_SOCKET; --socket PATH overrides it"
        case .runtimeDirectory:
            return "hint: the path is the counter's default under $XDG_RUNTIME_DIR; for another app or a daemon with "
                + "another XDG_RUNTIME_DIR, give --socket PATH or set MOBIUSD_SOCKET"
        case .fallback:
            return "hint: the path is the counter's default when XDG_RUNTIME_DIR is unset; for another app or a "
                + "daemon that has XDG_RUNTIME_DIR set, give --socket PATH or set MOBIUSD_SOCKET"
        }
    }
}
