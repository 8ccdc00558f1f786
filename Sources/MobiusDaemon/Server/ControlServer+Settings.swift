extension ControlServer {
    /// A reload's new limits and access rules, applied to the connections already open as well as to new ones:
    /// `maxLineBytes`, `maxOutputBytes` and `stallTimeout` are checked against the new values from now on; the
    /// connection limits count the open connections (none is closed for being over a lowered limit, but no new one
    /// is accepted until the count is below it); each open connection's permissions are decided again, from the
    /// credentials its peer connected with. A peer that loses read access while it has a stream (`subscribe`,
    /// `monitor`) is disconnected; one that loses write access gets `PermissionDenied` for its next event.
    func apply(_ new: ServerSettings) {
        var next = new
        next.shutdownFlushSeconds = settings.shutdownFlushSeconds
        settings = next
        for connection in connections.values {
            connection.limitLines(to: settings.maxLineBytes)
            guard connection.state.isOpen else { continue }
            let permissions = settings.access.permissions(for: connection.peer)
            if connection.hasStreams && connection.requests.canRead && !permissions.read {
                close(connection, reason: "read access was withdrawn by a reload")
                continue
            }
            connection.authorize(permissions)
        }
    }
}
