extension ControlServer {
    /// The loop answered a `log` request: the stream starts after the reply, at the end of this round.
    func startLog(_ id: ConnectionID, _ start: LogStreamStart) {
        guard let connection = connections[id] else { return }
        guard connection.logStream == nil else {
            // One stream at a time per connection: the next starts when this one has ended.
            connection.queueLogStream(start)
            return
        }
        logStreams.started(id)
        logStreams.carriesModels(id, start.models)
        connection.logStream = LogStream(start)
        logStreams.makeDue(id)
    }

    /// A pass was committed: streams waiting at the head go on.
    /// Runs the streams that are due (end of round, before writing).
    func pumpDueLogStreams() {
        guard !logStreams.due.isEmpty else { return }
        for id in logStreams.takeDue() {
            if let connection = connections[id] { pumpLog(connection) }
        }
    }

    /// Appends log items to the connection's output while it is under half of `maxOutputBytes`: from memory when
    /// the records are there, else through a read of the segment files on the read thread. A reader that falls
    /// behind thus reads from disk, never from unbounded memory (docs/protocol.md 1.5).
    func pumpLog(_ connection: ClientConnection) {
        guard var stream = connection.logStream, !stream.reading, connection.state.isOpen else { return }
        let source = logSource
        let threshold = max(64 * 1024, settings.maxOutputBytes / 2)
        var appended = false
        defer {
            if appended { markDirty(connection) }
        }
        while connection.pendingOutputBytes < threshold {
            if stream.isFinished {
                endLog(connection, at: stream.next &- 1, compacted: false)
                appended = true
                return
            }
            let through = stream.through(head: source.committedSeq)
            guard stream.next <= through else { break }
            let room = threshold - connection.pendingOutputBytes
            if stream.models {
                // The loop's own models while the stream is at the head, else a replay on the history thread.
                let from = stream.next
                if let read = connection.appendOutput({
                    source.appendModelLines(from: from, through: through, maxBytes: room, to: &$0)
                }) {
                    stream.remaining = stream.remaining.map { $0 - (read.next - from) }
                    stream.next = read.next
                    stream.model = read.model
                    stream.cursor = nil
                    appended = true
                    continue
                }
                stream.reading = true
                connection.logStream = stream
                let id = connection.id
                source.readModelLines(
                    from: stream.next, through: through, maxBytes: room, cursor: stream.cursor, after: stream.model
                ) { [weak self] chunk in self?.logRead(id, chunk) }
                return
            }
            let read = connection.appendOutput { output in
                let before = output.count
                let next = source.appendLines(from: stream.next, through: through, maxBytes: room, to: &output)
                return (next, output.count > before)
            }
            if let next = read.0 {
                stream.remaining = stream.remaining.map { $0 - (next - stream.next) }
                stream.next = next
                stream.cursor = nil
                appended = appended || read.1
                continue
            }
            guard source.hasDisk else {
                connection.logStream = stream
                endLog(connection, at: stream.next &- 1, compacted: true)
                appended = true
                return
            }
            stream.reading = true
            connection.logStream = stream
            let id = connection.id
            source.readLines(from: stream.next, through: through, maxBytes: room, cursor: stream.cursor) {
                [weak self] chunk in
                self?.logRead(id, chunk)
            }
            return
        }
        connection.logStream = stream
    }

    private func logRead(_ id: ConnectionID, _ chunk: JournalReader.Chunk) {
        guard let connection = connections[id], var stream = connection.logStream else { return }
        stream.reading = false
        connection.appendOutput { $0.append(contentsOf: chunk.lines) }
        stream.remaining = stream.remaining.map { $0 - (chunk.next - stream.next) }
        stream.next = chunk.next
        stream.cursor = chunk.cursor
        if let model = chunk.model { stream.model = model }
        connection.logStream = stream
        markDirty(connection)
        if let problem = chunk.problem { log.error("log: cannot read the journal: \(problem)") }
        if let refusal = chunk.refusal {
            let last = stream.next &- 1
            finishLog(connection, with: LogLine.end(seq: last, error: refusal.code, refusal.message(at: last)))
            return
        }
        if let damage = chunk.damage {
            finishLog(connection, with: LogLine.end(seq: stream.next &- 1, damaged: damage))
            return
        }
        if chunk.vanished {
            endLog(connection, at: stream.next &- 1, compacted: true)
            return
        }
        pumpLog(connection)
    }

    private func endLog(_ connection: ClientConnection, at seq: UInt64, compacted: Bool) {
        finishLog(connection, with: LogLine.end(seq: seq, compacted: compacted))
    }

    private func finishLog(_ connection: ClientConnection, with end: [UInt8]) {
        connection.appendOutput { $0.append(contentsOf: end) }
        connection.logStream = nil
        markDirty(connection)
        if let next = connection.nextLogStream() {
            logStreams.carriesModels(connection.id, next.models)
            connection.logStream = LogStream(next)
            logStreams.makeDue(connection.id)
            // Lines that waited for room in the queue of streams may go on.
            if connection.state.waits.contains(.output), connection.state.outputWaitEnded() == .resume {
                resume(connection)
            }
            return
        }
        logStreams.ended(connection.id)
    }
}
