import MobiusCore
import MobiusJSON
import MobiusSystem

extension ControlServer {
    /// Accepts every pending connection. Out of descriptors, it stops accepting until one is freed or a short
    /// timer fires, rather than being woken for the same pending connection again and again.
    func acceptConnections() {
        guard let listener, acceptPause == nil || acceptPause?.retryTimer == nil else { return }
        while true {
            let accepted: FileDescriptor?
            do {
                accepted = try UnixSocket.accept(listener.fd)
            } catch {
                if error.errno == Errno.processOutOfDescriptors
                    || error.errno == Errno.systemOutOfDescriptors
                {
                    pauseAccepting(error)
                } else {
                    log.limited("accept", .error, "control socket: \(error)")
                }
                return
            }
            guard let fd = accepted else {
                endAcceptPause()
                return
            }
            endAcceptPause()
            admit(fd)
        }
    }

    private func pauseAccepting(_ error: SystemError) {
        guard let listener, let registration = listener.registration else { return }
        if acceptPause == nil {
            acceptPause = AcceptPause(startedAt: SystemProcess.monotonicNanoseconds(), reason: error.reason)
            let limit = (try? ResourceLimits.openFiles()).map { " (open files limit \($0.soft))" } ?? ""
            log.warning(
                "control socket: out of file descriptors (\(error.reason))\(limit); not accepting until one is freed")
        } else {
            acceptPause?.failedRetries += 1
        }
        reactor.unregister(registration)
        listener.registration = nil
        acceptPause?.retryTimer = reactor.after(nanoseconds: AcceptPause.retryNanoseconds) { [weak self] in
            self?.retryAccepting()
        }
    }

    /// A descriptor was closed: if accepting is paused, try again now.
    func descriptorFreed() {
        guard acceptPause != nil, let timer = acceptPause?.retryTimer else { return }
        reactor.cancel(timer)
        retryAccepting()
    }

    private func retryAccepting() {
        guard let listener, acceptPause != nil, !shuttingDown else { return }
        acceptPause?.retryTimer = nil
        do {
            listener.registration = try reactor.register(listener.fd, for: .readable, handler: listener)
        } catch {
            log.limited("accept", .error, "control socket: \(error)")
        }
        acceptConnections()
    }

    private func endAcceptPause() {
        guard let pause = acceptPause, pause.retryTimer == nil else { return }
        acceptPause = nil
        let seconds = Double(SystemProcess.monotonicNanoseconds() - pause.startedAt) / 1e9
        log.notice(
            "control socket: accepting again after \((seconds * 10).rounded() / 10) s without descriptors "
                + "(\(pause.failedRetries) retries failed)")
    }

    /// Takes a new client socket (non-blocking): refused past the connection limits, else a connection.
    func admit(_ fd: FileDescriptor) {
        guard let peer = try? UnixSocket.peerCredentials(fd) else {
            fd.close()
            return
        }
        let perUser = connectionsPerUser[peer.uid, default: 0]
        if connections.count >= settings.maxConnections || perUser >= settings.maxConnectionsPerUser || shuttingDown {
            let which =
                shuttingDown
                ? "the daemon is shutting down"
                : connections.count >= settings.maxConnections
                    ? "the daemon has \(connections.count) connections (maxConnections \(settings.maxConnections))"
                    : "uid \(peer.uid) has \(perUser) connections (maxConnectionsPerUser \(settings.maxConnectionsPerUser))"
            let line = JSONLine.error(
                shuttingDown ? .shuttingDown : .overloaded, "too many connections: \(which)", line: nil)
            _ = line.withUnsafeBytes { try? fd.write($0) }
            fd.close()
            log.limited("connection refused", .warning, "refused a connection from uid \(peer.uid): \(which)")
            return
        }
        // The table is moved out while it grows (see `append(_:to:)`).
        var table = SlotTable<ClientConnection>()
        swap(&table, &connections)
        let permissions = settings.access.permissions(for: peer)
        let connection = table.insert { id in
            ClientConnection(
                id: id, fd: fd, peer: peer, permissions: permissions, eventsAsText: loop.eventsAsText, server: self)
        }
        swap(&table, &connections)
        let id = connection.id
        do {
            connection.registration = try reactor.register(fd, for: Epoll.Events(rawValue: 0), handler: connection)
        } catch {
            log.limited("accept", .error, "control socket: \(error)")
            swap(&table, &connections)
            table.remove(id)
            swap(&table, &connections)
            fd.close()
            return
        }
        connectionsPerUser[peer.uid, default: 0] += 1
        updateInterest(connection)
    }
}
