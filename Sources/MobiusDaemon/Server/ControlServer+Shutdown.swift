import MobiusSystem

extension ControlServer {
    /// SIGTERM/SIGINT: stop accepting and reading; complete lines already read but not yet handed to the loop get
    /// `ShuttingDown`; streams end once their connection has flushed.
    func beginShutdown() {
        guard !shuttingDown else { return }
        shuttingDown = true
        if let listener {
            if let registration = listener.registration { reactor.unregister(registration) }
            if let timer = acceptPause?.retryTimer { reactor.cancel(timer) }
            listener.fd.close()
            self.listener = nil
        }
        for connection in Array(connections.values) {
            connection.state.drain()
            connection.answerUnreadLines(self)
            updateInterest(connection)
            finishIfDone(connection)
        }
    }

    /// Whether every connection has taken its last replies (shutdown may end).
    var finishedFlushing: Bool {
        connections.values.allSatisfy { $0.pendingOutputBytes == 0 && $0.awaitingLoop == 0 }
    }

    /// Closes every connection (the end of shutdown).
    func closeAll() {
        for connection in Array(connections.values) { close(connection, reason: nil) }
    }
}
