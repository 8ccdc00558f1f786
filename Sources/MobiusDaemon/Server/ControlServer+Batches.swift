import MobiusCore
import MobiusSystem

extension ControlServer {
    /// Most bytes of lines in one batch.
    static var batchBytes: Int { 256 * 1024 }
    /// Fewer complete bytes than this are interpreted on the reactor: handing them over would cost more than it
    /// saves (a one-at-a-time client never leaves the reactor thread).
    static var batchThreshold: Int { 4096 }

    /// Sends a connection's batch to the parse thread; the result comes back through the waker.
    func interpret(_ job: LineBatch.Job) {
        batchesOut += 1
        let waker = reactor.waker
        let server = UncheckedSendable(value: self)
        parser.submit {
            let result = HandOff(LineBatch.interpret(job))
            waker.post {
                if let result = result.take() { server.value.batchInterpreted(result) }
            }
        }
    }

    /// The most inputs of a returned batch that go to the loop in one reactor round; the rest go in the next rounds,
    /// after each round's passes, so that a whole batch does not hold the reactor (and an update plugin waiting for
    /// its next request) for a round of its own.
    static var inputsPerRound: Int { 2048 }

    /// A batch back from the parse thread whose inputs are not all with the loop yet.
    struct ReturnedBatch {
        var result: LineBatch.Result
        /// The first input not handed over.
        var next = 0
        var remaining: Int { result.inputs.count - next }
    }

    /// A batch is back: its inputs go to the loop in line order, a share per round, and the connection's next batch
    /// goes to the parse thread at once, so that it is interpreted while the reactor applies this one.
    private func batchInterpreted(_ result: consuming LineBatch.Result) {
        guard let connection = connections[result.connection] else {
            batchesOut -= 1
            return
        }
        connection.batchInterpreted(bytes: result.bytesConsumed, lines: result.linesConsumed, state: result.state)
        let quit = result.state.quit
        // The batch before it, if it is still being handed over, goes first and whole (rare: a batch takes the
        // parse thread longer than the reactor takes to hand one over).
        // The returned batches change while moved out of the object (docs/architecture.md, "Exclusivity").
        var returned: [ReturnedBatch] = []
        if connection.state.batchCameBack() {
            swap(&returned, &returnedBatches)
            let index = returned.firstIndex { $0.result.connection == connection.id }
            let earlier = index.map { returned.remove(at: $0) }
            swap(&returned, &returnedBatches)
            if var earlier {
                handOver(&earlier, upTo: earlier.remaining, from: connection)
                batchesOut -= 1
            }
        }
        var batch = ReturnedBatch(result: result)
        handOver(&batch, upTo: Self.inputsPerRound, from: connection)
        if batch.remaining > 0 {
            swap(&returned, &returnedBatches)
            returned.append(batch)
            swap(&returned, &returnedBatches)
            reactor.requestAnotherRound()
            if !quit && !shuttingDown { connection.sendNextBatch(self) }
        } else {
            handedOver(batch, from: connection)
        }
    }

    /// Hands the next share of each returned batch to the loop (after the round's passes).
    func continueHandOvers() {
        guard !returnedBatches.isEmpty else { return }
        var batches: [ReturnedBatch] = []
        swap(&batches, &returnedBatches)
        batches.reverse()
        var kept: [ReturnedBatch] = []
        // Each batch moves out of the array (`popLast`), so handing over empties its inputs in place, not a copy.
        while var batch = batches.popLast() {
            guard let connection = connections[batch.result.connection] else {
                batchesOut -= 1
                continue
            }
            handOver(&batch, upTo: Self.inputsPerRound, from: connection)
            if batch.remaining > 0 {
                kept.append(batch)
                reactor.requestAnotherRound()
            } else {
                handedOver(batch, from: connection)
            }
        }
        // Handing over never returns a batch, so nothing was added meanwhile.
        swap(&kept, &returnedBatches)
    }

    /// Moves up to `count` of the batch's inputs into the loop's queue.
    private func handOver(_ batch: inout ReturnedBatch, upTo count: Int, from connection: ClientConnection) {
        let start = batch.next
        let end = start + min(count, batch.remaining)
        // Each input moves into the loop's queue: its slot gets a value that owns nothing (`.disconnected`) in
        // exchange, which the array then destroys for free, instead of a copy of every payload destroyed again with
        // the array.
        for index in start..<end {
            var input = ClientInput.disconnected(connection.id)
            swap(&input, &batch.result.inputs[index])
            connection.submit(input, self)
        }
        batch.next = end
    }

    /// The batch's last input is with the loop: the connection goes on with its next lines.
    private func handedOver(_ batch: borrowing ReturnedBatch, from connection: ClientConnection) {
        batchesOut -= 1
        // A first line too long for the batch (only possible with a small maxLineBytes) is the reactor's to answer
        // (LineTooLong), so an empty batch makes the next line go the inline way.
        let goOn = connection.state.handedOver(empty: batch.result.linesConsumed == 0)
        if batch.result.state.quit { connection.state.drain() }
        // A batch sent while this one was handed over comes back on its own.
        guard goOn else { return }
        if shuttingDown {
            connection.answerUnreadLines(self)
            finishIfDone(connection)
            return
        }
        resume(connection)
    }
}
