import MobiusSystem

extension ControlServer: LoopOutputSink {
    func deliver(_ outputs: [PassOutput], writeNow: Bool) {
        // Replies come in runs for one connection (a pipelining client): look each connection up once per run.
        var recent: ClientConnection?
        for output in outputs {
            switch output {
            case .reply(let id, let reply):
                if recent?.id != id {
                    if writeNow, let recent { writeEarly(recent) }
                    guard let connection = connections[id] else {
                        recent = nil
                        if ForeignConnectionID.number(of: id) != nil { foreignReplies?.deliver(reply, to: id) }
                        continue
                    }
                    recent = connection
                    markDirty(connection)
                }
                recent?.replied(reply)
            case .trace(let id, let line):
                guard let connection = connections[id] else { continue }
                connection.offerTrace(line, limit: settings.maxOutputBytes)
                markDirty(connection)
            case .control(let ticket, let command):
                perform(command, ticket: ticket)
            }
        }
        if writeNow, let recent { writeEarly(recent) }
        // Lines that waited for these replies may go to the loop now.
        guard !outputWaiters.isEmpty else { return }
        var waiting: [ClientConnection] = []
        swap(&waiting, &outputWaiters)
        for connection in waiting where connection.state.outputWaitEnded() == .resume {
            resume(connection)
        }
    }

    /// Carries out a control command; its reply goes out when the handler has one, and the connection's later
    /// lines are read from then on.
    private func perform(_ command: ControlCommand, ticket: ReplyTicket) {
        // The server lives as long as the runtime that answers; a weak capture would give it a side table.
        controlHandler.perform(command, line: ticket.line) { [unowned self] line in controlAnswered(ticket, line) }
    }

    private func controlAnswered(_ ticket: ReplyTicket, _ line: [UInt8]) {
        guard let connection = connections[ticket.connection] else { return }
        connection.replied(.line(line))
        markDirty(connection)
        connection.controlAnswered()
        if connection.state.isOpen { resume(connection) }
    }

    /// Writes a connection's new replies now, before the rest of the pass and the round: the end of the round's
    /// flush does the bookkeeping (a failed or partial write is tried again there). Only when nothing was pending,
    /// so a client that reads slowly is not tried twice a round, and only when the loop has nothing else queued: a
    /// woken client may take the reactor's CPU, which should first start the next pass and its commit.
    private func writeEarly(_ connection: ClientConnection) {
        guard connection.lastProgress == 0 else { return }
        _ = connection.write()
    }

    func publishModel(_ line: [UInt8], to ids: [ConnectionID]) {
        // Written at once, in subscription order, rather than through the dirty list: with many subscribers the
        // per-subscriber bookkeeping is what the fan-out latency tail is made of.
        let now = SystemProcess.monotonicNanoseconds()
        for id in ids {
            guard let connection = connections[id] else { continue }
            connection.offerModel(line)
            flush(connection, now: now)
        }
    }

    func trace(_ line: [UInt8], to ids: [ConnectionID]) {
        for id in ids {
            guard let connection = connections[id] else { continue }
            connection.offerTrace(line, limit: settings.maxOutputBytes)
            markDirty(connection)
        }
    }

    // MARK: - Writing

    /// The end of a reactor round, after the loop's passes: write what is pending and watch for stalls.
    /// - Parameter now: the time, when the caller has just read it (monotonic nanoseconds).
    func endOfRound(now: UInt64? = nil) {
        pumpDueLogStreams()
        flushDirty(now: now)
    }

    private func flushDirty(now: UInt64?) {
        guard !dirty.isEmpty else { return }
        let now = now ?? SystemProcess.monotonicNanoseconds()
        var batch: [ClientConnection] = []
        swap(&batch, &dirty)
        for connection in batch {
            connection.state.flushDequeued()
            if connection.state.isOpen { flush(connection, now: now) }
        }
        batch.empty()
        if dirty.isEmpty { swap(&batch, &dirty) }
    }

    /// Writes what the socket takes now, then closes the connection if it is done or updates its epoll interest.
    func flush(_ connection: ClientConnection, now: UInt64) {
        switch connection.write(now: now) {
        case .failed:
            close(connection, reason: nil)
            return
        case .pending:
            // Output the socket did not take: watch for a stall (every write goes through here).
            if stallTimer == nil { scheduleStallCheck() }
        case .drained:
            break
        }
        if connection.logStream != nil { pumpLog(connection) }
        finishIfDone(connection)
        guard connection.state.isOpen else { return }
        // With every reply delivered, no pass holds slices of the input any more: a big buffer may go now.
        if connection.awaitingLoop == 0 { connection.dropConsumedInput() }
        if connection.pendingOutputBytes < settings.maxOutputBytes, connection.state.waits.contains(.output),
            connection.mayRequest(limit: settings.maxOutputBytes), connection.state.outputWaitEnded() == .resume
        {
            // Output drained below the bound: its waiting lines may go on.
            resume(connection)
            return
        }
        updateInterest(connection)
    }

    // MARK: - Stalls

    /// Checks every quarter second while some connection has unwritten output; no timer otherwise, so an idle
    /// daemon never wakes.
    private func scheduleStallCheck() {
        stallTimer = reactor.after(nanoseconds: 250_000_000) { [weak self] in
            guard let self else { return }
            stallTimer = nil
            checkStalls()
            if connections.values.contains(where: { $0.pendingOutputBytes > 0 }) { scheduleStallCheck() }
        }
    }

    private func checkStalls() {
        let now = SystemProcess.monotonicNanoseconds()
        let limit = settings.stallTimeoutNanoseconds
        for connection in Array(connections.values) {
            if connection.stalled(now: now, limit: limit) {
                close(connection, reason: "no write progress for \(settings.stallTimeout) s (stallTimeout)")
            }
        }
    }
}
