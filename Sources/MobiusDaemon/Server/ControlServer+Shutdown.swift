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
            connection.closeAfterFlush = true
            answerUnreadLines(connection)
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

    /// Answers the complete lines not yet handed to the loop with `ShuttingDown`. Lines out at the parse thread are
    /// handed over when they come back, and the rest answered then.
    func answerUnreadLines(_ connection: ClientConnection) {
        guard !connection.batchOut else { return }
        let input = connection.input
        var start = connection.inputStart
        connection.waitingToRequest = false
        while let newline = input[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = RequestLine.classify(input[start..<newline])
            connection.linesConsumed += 1
            let ticket = ReplyTicket(
                connection: connection.id, line: connection.linesConsumed, mode: connection.requests?.replyMode ?? .on)
            if case .blank = line {
            } else if line.isEventLike {
                submit(.rejected(.shuttingDown, "the daemon is shutting down", ticket), on: connection)
            } else {
                submit(
                    .reply(JSONLine.error(.shuttingDown, "the daemon is shutting down", line: ticket.line), ticket),
                    on: connection)
            }
            start = newline + 1
        }
        connection.inputStart = start
        connection.scanFrom = start
    }
}
