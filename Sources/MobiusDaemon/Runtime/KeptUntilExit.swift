import MobiusCore

/// Object graphs built once and kept until the process exits: the daemon's runtime, and the plugin host `--check`
/// runs. Their parts refer to each other (a reactor holds handlers that hold the parts that hold the reactor), so they
/// are never freed before exit anyway. Held here, they stay reachable until then, and LeakSanitizer (make sanitize)
/// reports only what the daemon let go of while it ran.
enum KeptUntilExit {
    private static let objects = Locked<[AnyObject]>([])

    /// Keeps `object` reachable until the process exits.
    static func keep(_ object: AnyObject) {
        objects.withLock { $0.append(object) }
    }
}
