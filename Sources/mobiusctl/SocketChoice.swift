import MobiusSystem

/// The socket mobiusctl connects to and how that path was chosen, for the hint when nobody answers there.
struct SocketChoice: Equatable {
    /// Where the path came from, in order of precedence.
    enum Origin: Equatable {
        /// `--socket PATH`.
        case flag
        /// The `MOBIUSD_SOCKET` environment variable.
        case environment
        /// Where mobiusd puts the socket of app `name` (`--app NAME`, else the default app): the first of
        /// `searched` that is a socket, else the first of them, the daemon's own default in this environment.
        case app(String, searched: [String])
    }

    let path: String
    let origin: Origin

    /// The default app, whose socket mobiusctl looks for without `--app`.
    static let defaultApp = "counter"

    /// `--socket`, else the socket of `--app`, else `$MOBIUSD_SOCKET`, else the default app's socket. An app's socket
    /// is looked for where mobiusd names it (empty variables count as unset, as they do for mobiusd):
    /// `$XDG_RUNTIME_DIR/mobiusd/<app>.sock` (its default, and the user units'), `/tmp/mobiusd-<uid>/<app>.sock`
    /// (its default without XDG_RUNTIME_DIR), `/run/mobiusd/<app>.sock` (the system units').
    static func choose(
        flag: String?, app: String?, environment: [String: String], userID: UInt32, isSocket: (String) -> Bool
    ) -> SocketChoice {
        if let flag { return SocketChoice(path: flag, origin: .flag) }
        if app == nil, let path = environment["MOBIUSD_SOCKET"], !path.isEmpty {
            return SocketChoice(path: path, origin: .environment)
        }
        let name = app ?? defaultApp
        let searched = Self.searched(app: name, runtimeDirectory: environment["XDG_RUNTIME_DIR"], userID: userID)
        let path = searched.first(where: isSocket) ?? searched[0]
        return SocketChoice(path: path, origin: .app(name, searched: searched))
    }

    /// The paths where mobiusd may have put app `name`'s socket, the daemon's default in this environment first.
    private static func searched(app name: String, runtimeDirectory: String?, userID: UInt32) -> [String] {
        let fallback = AppSocketPaths.privateFallback(app: name, userID: userID)
        let primary = AppSocketPaths.daemonDefault(app: name, runtimeDirectory: runtimeDirectory, userID: userID)
        return (primary == fallback ? [] : [primary]) + [fallback, AppSocketPaths.systemUnit(app: name)]
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
                + "--app NAME for another app, --socket PATH or MOBIUSD_SOCKET for another path"
        }
    }
}
