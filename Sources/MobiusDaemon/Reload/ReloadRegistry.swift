/// The seam through which parts of the daemon follow a SIGHUP reload: each part that depends on the config
/// registers a closure by name; a valid reload calls each, in the order registered, with the old and the new
/// config, on the reactor thread.
///
/// A closure applies what changed for its part and returns a short summary for the log (`nil`: nothing changed for
/// it). It must not block: a part that has slow work to do (restarting a plugin, re-adding D-Bus matches) starts it
/// and returns. The config has been validated as a whole before any closure runs, so a closure does not refuse.
/// Settings that need a restart (`socket.path`, `update`, …) are reported by `ConfigReloader` and never reach here
/// changed.
final class ReloadRegistry {
    /// The config before and after a reload.
    struct Change {
        let old: DaemonConfig
        let new: DaemonConfig
    }

    private var parts: [(name: String, apply: (Change) -> String?)] = []

    /// Registers `apply` for the part `name` (`"plugins"`, `"dbus"`).
    func register(_ name: String, _ apply: @escaping (Change) -> String?) {
        parts.append((name, apply))
    }

    /// The names of the registered parts.
    var names: [String] { parts.map(\.name) }

    /// Calls every part; returns `"name: summary"` for those that changed something.
    func apply(_ change: Change) -> [String] {
        parts.compactMap { part in part.apply(change).map { "\(part.name): \($0)" } }
    }
}
