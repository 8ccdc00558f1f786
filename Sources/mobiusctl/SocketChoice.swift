import MobiusSystem

/// The socket mobiusctl connects to and how that path was chosen, for the hint when nobody answers there.
struct SocketChoice: Equatable {
    /// Where the path came from, in order of precedence.
    enum Origin: Equatable {
        /// `--socket PATH`.
        case flag
        /// The `MOBIUSD_SOCKET` environment variable.
        case environment
        /// Where mobiusd puts the socket of app `name` (`--app NAME`): the first of `searched` that is a socket,
        /// else the first of them, the daemon's own default in this environment.
        case app(String, searched: [String])
        /// The default app's default path under `$XDG_RUNTIME_DIR`.
        case runtimeDirectory
        /// The default app's default path when `XDG_RUNTIME_DIR` is unset or empty: `/tmp/mobiusd-<uid>`.
        case fallback
    }

    let path: String
    let origin: Origin

    /// `--socket`, else the socket of `--app`, else `$MOBIUSD_SOCKET`, else the path mobiusd picks for the default
    /// app, the counter: `$XDG_RUNTIME_DIR/mobiusd/counter.sock`, else `/tmp/mobiusd-<uid>/counter.sock` (empty
    /// variables count as unset, as they do for mobiusd). `--app NAME` looks where mobiusd names that app's socket:
    /// `$XDG_RUNTIME_DIR/mobiusd/<app>.sock` (its default, and the user units'), `/tmp/mobiusd-<uid>/<app>.sock`
    /// (its default without XDG_RUNTIME_DIR), `/run/mobiusd/<app>.sock` (the system units').
    static func choose(
        flag: String?, app: String?, environment: [String: String], userID: UInt32, isSocket: (String) -> Bool
    ) -> SocketChoice {
        if let flag { return SocketChoice(path: flag, origin: .flag) }
        if let app {
            let searched = AppSocketPaths.searched(
                app: app, runtimeDirectory: environment["XDG_RUNTIME_DIR"], userID: userID)
            return SocketChoice(
                path: searched.first(where: isSocket) ?? searched[0], origin: .app(app, searched: searched))
        }
        if let path = environment["MOBIUSD_SOCKET"], !path.isEmpty {
            return SocketChoice(path: path, origin: .environment)
        }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            let path = AppSocketPaths.daemonDefault(app: "counter", runtimeDirectory: runtime, userID: userID)
            return SocketChoice(path: path, origin: .runtimeDirectory)
        }
        return SocketChoice(path: AppSocketPaths.privateFallback(app: "counter", userID: userID), origin: .fallback)
    }

    /// One line saying how the path was chosen and how to choose another.
    var hint: String {
        switch origin {
        case .flag:
            return "hint: the path was given with --socket"
        case .environment:
            return "hint: the path comes from MOBIUSD_SOCKET; --socket PATH overrides it"
        case .app(let name, let searched):
            let places = searched.enumerated().map { index, path in
                let kind =
                    index == searched.count - 1
                    ? "the system units"
                    : index == searched.count - 2 ? "without XDG_RUNTIME_DIR" : "under XDG_RUNTIME_DIR"
                return "\(path) (\(kind))"
            }
            return "hint: looked for app \"\(name)\" where mobiusd puts its socket: \(places.joined(separator: ", ")); "
                + "--socket PATH for another path"
        case .runtimeDirectory:
            return "hint: the path is the counter's default under $XDG_RUNTIME_DIR; for another app give --app NAME, "
                + "for a daemon with another XDG_RUNTIME_DIR --socket PATH or MOBIUSD_SOCKET"
        case .fallback:
            return "hint: the path is the counter's default when XDG_RUNTIME_DIR is unset; for another app give --app "
                + "NAME, for a daemon that has XDG_RUNTIME_DIR set --socket PATH or MOBIUSD_SOCKET"
        }
    }
}
