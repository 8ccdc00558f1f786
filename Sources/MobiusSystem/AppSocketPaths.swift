/// Where an app's control socket is when nothing names another path: where mobiusd binds it without `--socket` or
/// `socket.path`, and where the systemd units listen. The daemon and mobiusctl's `--app` both name it from here.
package enum AppSocketPaths {
    /// 1 to 64 letters, digits, `-`, `_` and `.`, not `.` or `..`: a name that is safe as a file name.
    package static func isValidAppName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            } && name != "." && name != ".."
    }

    /// `$XDG_RUNTIME_DIR/mobiusd/<app>.sock`, or `/tmp/mobiusd-<uid>/<app>.sock` when XDG_RUNTIME_DIR is unset or
    /// empty: the daemon's default (the user units' `%t/mobiusd/%i.sock` is the first).
    package static func daemonDefault(app: String, runtimeDirectory: String?, userID: UInt32) -> String {
        if let runtimeDirectory, !runtimeDirectory.isEmpty {
            return "\(runtimeDirectory)/mobiusd/\(app).sock"
        }
        return privateFallback(app: app, userID: userID)
    }

    /// Where mobiusctl's `--app NAME` looks, in order, taking the first that is a socket: the daemon's default in
    /// this environment, the default without XDG_RUNTIME_DIR (when that is another path), the system units' path.
    package static func searched(app: String, runtimeDirectory: String?, userID: UInt32) -> [String] {
        let fallback = privateFallback(app: app, userID: userID)
        let primary = daemonDefault(app: app, runtimeDirectory: runtimeDirectory, userID: userID)
        return (primary == fallback ? [] : [primary]) + [fallback, systemUnit(app: app)]
    }

    /// `/tmp/mobiusd-<uid>/<app>.sock`, the daemon's default without XDG_RUNTIME_DIR.
    package static func privateFallback(app: String, userID: UInt32) -> String {
        "/tmp/mobiusd-\(userID)/\(app).sock"
    }

    /// `/run/mobiusd/<app>.sock`, where the system units (`mobiusd.socket`, `mobiusd@.socket`) listen.
    package static func systemUnit(app: String) -> String {
        "/run/mobiusd/\(app).sock"
    }
}
