import MobiusCore
import MobiusSystem

extension ControlServer {
    /// A reload's new limits and access rules, applied to the connections already open as well as to new ones:
    /// `maxLineBytes`, `maxOutputBytes` and `stallTimeout` are checked against the new values from now on; the
    /// connection limits count the open connections (none is closed for being over a lowered limit, but no new one
    /// is accepted until the count is below it); each open connection's permissions are decided again. A peer that
    /// loses read access while it has a stream (`subscribe`, `monitor`) is disconnected; one that loses write access
    /// gets `PermissionDenied` for its next event. Decisions that need a peer's groups use the cache or a lookup
    /// on the worker; until that answers the connection keeps its old permissions.
    func apply(_ new: ServerSettings) {
        var next = new
        next.shutdownFlushSeconds = settings.shutdownFlushSeconds
        settings = next
        let now = SystemProcess.monotonicNanoseconds()
        var lookups: [UInt32: (PeerCredentials, [ConnectionID])] = [:]
        for connection in connections.values {
            connection.limitLines(to: settings.maxLineBytes)
            guard connection.requests != nil else { continue }  // still waiting for its first decision
            let groups = groupCache.groups(of: connection.peer.uid, now: now)
            if let permissions = settings.access.permissions(for: connection.peer, groups: groups) {
                reauthorize(connection, permissions)
            } else {
                lookups[connection.peer.uid, default: (connection.peer, [])].1.append(connection.id)
            }
        }
        for (peer, ids) in lookups.values { lookUpGroupsAgain(of: peer, for: ids) }
    }

    private func reauthorize(_ connection: ClientConnection, _ permissions: (read: Bool, write: Bool)) {
        guard connection.state.isOpen, let state = connection.requests else { return }
        if connection.hasStreams && state.canRead && !permissions.read {
            close(connection, reason: "read access was withdrawn by a reload")
            return
        }
        connection.authorize(permissions, eventsAsText: loop.eventsAsText)
    }

    private func lookUpGroupsAgain(of peer: PeerCredentials, for ids: [ConnectionID]) {
        let waker = reactor.waker
        let server = UncheckedSendable(value: self)
        worker.submit {
            let groups = UserDatabase.groups(ofUser: peer.uid, primaryGroup: peer.gid)
            waker.post {
                let server = server.value
                server.groupCache.store(groups, for: peer.uid, now: SystemProcess.monotonicNanoseconds())
                for id in ids {
                    guard let connection = server.connections[id] else { continue }
                    let permissions =
                        server.settings.access.permissions(for: peer, groups: groups) ?? (read: false, write: false)
                    server.reauthorize(connection, permissions)
                }
            }
        }
    }
}
