import MobiusSystem

extension ControlServer {
    /// Most bytes of lines in one batch.
    static var batchBytes: Int { 256 * 1024 }
    /// Fewer complete bytes than this are interpreted on the reactor: handing them over would cost more than it
    /// saves (a one-at-a-time client never leaves the reactor thread).
    static var batchThreshold: Int { 4096 }

    /// Hands the connection's complete lines to the parse thread when there are many; returns whether it did.
    func sendBatch(_ connection: ClientConnection) -> Bool {
        guard !connection.skipBatchOnce else {
            connection.skipBatchOnce = false
            return false
        }
        let available = connection.input.count - connection.inputStart
        guard available >= Self.batchThreshold, let state = connection.requests, connection.modelSizedOwed == 0
        else { return false }
        let budget = settings.maxOutputBytes - connection.pendingOutputBytes - connection.owedBytes
        let room = loop.room()
        guard budget >= 64 * 1024, room >= 64 else { return false }
        let start = connection.inputStart
        let window = connection.input[start..<min(connection.input.count, start + Self.batchBytes)]
        guard let lastNewline = window.lastIndex(of: UInt8(ascii: "\n")), lastNewline - start >= Self.batchThreshold
        else { return false }
        let job = LineBatch.Job(
            connection: connection.id, bytes: Array(connection.input[start...lastNewline]),
            firstLine: connection.linesConsumed + 1, state: state, replyBudget: budget, maxInputs: room,
            maxLineBytes: settings.maxLineBytes)
        connection.batchOut = true
        batchesOut += 1
        let waker = reactor.waker
        let server = ReactorBound(value: self)
        parser.submit {
            let result = HandOff(LineBatch.interpret(job))
            waker.post {
                if let result = result.take() { server.value.batchInterpreted(result) }
            }
        }
        return true
    }

    /// A batch is back: its inputs go to the loop in line order, and the connection goes on with its next lines
    /// (perhaps the next batch, which the parse thread interprets while the reactor applies this one).
    private func batchInterpreted(_ result: consuming LineBatch.Result) {
        batchesOut -= 1
        guard let connection = connections[result.connection] else { return }
        connection.batchOut = false
        connection.inputStart += result.bytesConsumed
        connection.scanFrom = max(connection.scanFrom, connection.inputStart)
        connection.linesConsumed += result.linesConsumed
        // A reload may have changed the peer's permissions while the batch was out: its lines were interpreted with
        // the old ones, the lines after it get the new ones.
        var state = result.state
        if let current = connection.requests {
            state.canRead = current.canRead
            state.canWrite = current.canWrite
        }
        connection.requests = state
        // Each input moves into the loop's queue; its slot keeps a value that owns nothing (`.disconnected`), which
        // the array then destroys for free. A `for in` copied every payload out and destroyed it again with the
        // array (about 500 instructions an event).
        let ownsNothing = ClientInput.disconnected(connection.id)
        result.inputs.withUnsafeMutableBufferPointer { inputs in
            guard let base = inputs.baseAddress else { return }
            for index in inputs.indices {
                let input = (base + index).move()
                (base + index).initialize(to: ownsNothing)
                submit(input, on: connection)
            }
        }
        if result.state.quit { connection.closeAfterFlush = true }
        // A first line too long for the batch (only possible with a small maxLineBytes) is the reactor's to
        // answer (LineTooLong): the next line goes the inline way, or the batch would come back empty forever.
        connection.skipBatchOnce = result.linesConsumed == 0
        if shuttingDown {
            answerUnreadLines(connection)
            finishIfDone(connection)
            return
        }
        resume(connection)
    }
}
