import MobiusSystem

/// One client of the control socket: it reads its socket, frames its request lines, interprets them into inputs
/// for the loop, counts what it is owed, and writes its replies and streams. Its lifecycle is a `ConnectionState`;
/// the server routes readiness, replies and batches to it and keeps the lists it is on.
///
/// Every reply a connection gets comes out of a loop pass, in request order (requests the server answers alone go
/// through the pass too), so replies need no reordering here: the connection only counts what it is owed.
final class ClientConnection: ReactorHandler {
    // Everything here is touched only by the reactor thread.

    let id: ConnectionID
    let fd: FileDescriptor
    let peer: PeerCredentials
    /// Only for readiness: everything else gets the server as an argument, which costs no reference counting.
    private unowned let server: ControlServer
    var registration: Reactor.Registration?
    /// Where it is in its life; changed only through the state's transitions.
    var state = ConnectionState()
    /// The epoll interest currently registered.
    // `Events(rawValue: 0)` rather than `[]`: the array-literal initializer runs unspecialized generic code
    // across the module boundary, on every update.
    private var interest = Epoll.Events(rawValue: 0)
    /// What earlier lines decided for later ones, the peer's permissions among them.
    private(set) var requests: RequestState
    /// Request lines consumed so far (the next line's number is this plus one).
    private(set) var linesConsumed = 0
    /// Empty while `withInput` has it.
    private var input: LineFramer
    /// The input buffer's capacity after the last read (see `dropConsumedInput`).
    private var inputCapacity = 0

    // What the loop still owes, oldest first: an estimate of each reply's size, for the output bound.
    private var owedEstimates: [Int] = []
    private var owedHead = 0
    /// The sum of `owedEstimates` not yet answered.
    private(set) var owedBytes = 0
    /// Replies owed whose size is the model's (`model`, `subscribe`): lines wait while one is owed.
    private(set) var modelSizedOwed = 0

    // Output: bytes not yet written are output[outputStart...].
    private var output: [UInt8] = []
    private var outputStart = 0
    /// The newest subscription line not yet moved to `output` (latest-wins).
    private var pendingModel: [UInt8]?
    /// Trace lines dropped because the client reads too slowly.
    private var droppedTraces = 0
    /// Monotonic time of the last write progress while output was pending (0: none pending).
    private(set) var lastProgress: UInt64 = 0
    /// The connection's `log` stream, while it runs.
    var logStream: LogStream?
    /// Further `log` requests of the connection, streamed one after another (at most `maxQueuedLogStreams`).
    private(set) var queuedLogStreams: [LogStreamStart] = []

    /// Stands for "as big as the model": such a reply is owed at most once at a time.
    static let modelSized = -1

    init(
        id: ConnectionID, fd: FileDescriptor, peer: PeerCredentials, permissions: (read: Bool, write: Bool),
        eventsAsText: Bool, server: ControlServer
    ) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.server = server
        requests = RequestState(
            connection: id, peerUID: peer.uid, eventsAsText: eventsAsText, canRead: permissions.read,
            canWrite: permissions.write)
        input = LineFramer(maxLineBytes: server.settings.maxLineBytes)
    }

    func reactorReady(_ events: Epoll.Events) {
        server.connectionReady(self, events)
    }

    var hasStreams: Bool { logStream != nil || requests.subscribed || requests.monitoring }

    var pendingOutputBytes: Int { output.count - outputStart + (pendingModel?.count ?? 0) }

    /// Replies the loop still owes.
    var awaitingLoop: Int { owedEstimates.count - owedHead }

    /// Whether one more request may go to the loop under `limit` (config `maxOutputBytes`): only while unsent
    /// output plus what is already owed stays under it, and no model-sized reply is owed.
    func mayRequest(limit: Int) -> Bool {
        modelSizedOwed == 0 && pendingOutputBytes + owedBytes < limit
            && queuedLogStreams.count < Self.maxQueuedLogStreams
    }

    /// `log` streams a connection may have waiting behind its running one; past that its lines wait unread, so
    /// pipelined `log` requests cost no memory in proportion to their number.
    static let maxQueuedLogStreams = 16

    // MARK: - Permissions

    /// A reload decided its permissions again.
    func authorize(_ permissions: (read: Bool, write: Bool)) {
        requests.canRead = permissions.read
        requests.canWrite = permissions.write
    }

    /// A reload changed `maxLineBytes`: lines from now on are held to the new limit.
    func limitLines(to maxLineBytes: Int) {
        withInput { $0.maxLineBytes = maxLineBytes }
    }

    /// Stands in for `input` while `withInput` has it (a copy of one value: making a framer each time costs a call
    /// into MobiusSystem).
    private static let inputPlaceholder = LineFramer(bytes: [], maxLineBytes: 0, keepsCarriageReturn: false)

    /// Runs `body` on the input moved out of the object: the framer's calls into MobiusSystem are opaque to the
    /// optimizer, so made on the stored property they would each cost a runtime exclusivity check.
    private func withInput<T>(_ body: (inout LineFramer) -> T) -> T {
        var lines = Self.inputPlaceholder
        swap(&lines, &input)
        defer { swap(&lines, &input) }
        return body(&lines)
    }

    /// Runs `body` on the output buffer moved out of the object. Growing or freeing the buffer may release memory,
    /// which the optimizer cannot see through: done on the stored property, every access to it would be checked for
    /// exclusivity at run time.
    private func withOutput<T>(_ body: (inout [UInt8]) -> T) -> T {
        var buffer: [UInt8] = []
        swap(&buffer, &output)
        defer { swap(&buffer, &output) }
        return body(&buffer)
    }

    /// Runs `body` on the estimates of what is owed moved out of the object (as `withOutput`).
    private func withOwedEstimates<T>(_ body: (inout [Int]) -> T) -> T {
        var estimates: [Int] = []
        swap(&estimates, &owedEstimates)
        defer { swap(&estimates, &owedEstimates) }
        return body(&estimates)
    }

    // MARK: - Reading

    enum ReadOutcome {
        /// Bytes were read (and their lines handed on); its replies are due at the end of the round.
        case read
        /// Nothing to read now, or reading is paused.
        case wouldBlock
        /// The peer shut down its side.
        case endOfFile
        case failed
    }

    /// Reads what the socket has, a few buffers' worth at most, and hands each complete line on as it comes.
    func read(into buffer: UnsafeMutableRawBufferPointer, server: ControlServer) -> ReadOutcome {
        var budget = 4
        while budget > 0, wantsInput(server) {
            budget -= 1
            let result = Result { () throws(SystemError) in try fd.read(into: buffer) }
            switch result {
            case .failure:
                return .failed
            case .success(.wouldBlock):
                return .wouldBlock
            case .success(.endOfFile):
                state.peerShutDown()
                processLines(server)
                return .endOfFile
            case .success(.transferred(let count)):
                withInput { lines in
                    lines.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                    inputCapacity = lines.bytes.capacity
                    processLines(&lines, server)
                }
                // A short read drained the socket: reading again would only return EAGAIN, a wasted system call
                // per request for one-at-a-time clients. Level-triggered epoll reports anything that arrives later.
                if count < buffer.count { return .read }
            }
        }
        return .read
    }

    /// Whether to read more from the socket: not after EOF, `quit` or shutdown, and not while lines already read
    /// wait (for room in the loop's queue, or for output to drain). While a batch is at the parse thread, reading
    /// goes on up to one more batch, so the next one is ready when it comes back.
    func wantsInput(_ server: ControlServer) -> Bool {
        state.takesRequests && !state.peerFinished && state.waits.isEmpty && !server.shuttingDown
            && mayRequest(limit: server.settings.maxOutputBytes)
            && (!(state.isBatchOut || state.isHandingOver) || unconsumedInput < ControlServer.batchBytes)
    }

    /// Bytes read and not yet consumed.
    var unconsumedInput: Int { withInput { $0.unconsumedCount } }

    /// Lets a big input buffer go once no pass holds slices of it (see `LineFramer.dropConsumed`). A smaller one
    /// waits for the next read, whose append drops what was taken and keeps the buffer: no pass can hold a slice of
    /// it by then, since nothing was read in between.
    func dropConsumedInput() {
        guard inputCapacity > LineFramer.largestKeptBuffer else { return }
        withInput { lines in
            lines.dropConsumed()
            inputCapacity = lines.bytes.capacity
        }
    }

    /// The largest input buffer whose events' texts are slices of it rather than copies (see `processLines`). Small,
    /// because a queued event keeps its buffer alive: a client whose every read gets a new buffer (the pass still
    /// holding the last one) pins at most this much per queued event, not a copy's few dozen bytes.
    static var sharedInputBytes: Int { 256 }

    /// Hands every complete line in its input (and, after EOF, a final unterminated one) to the loop, while the
    /// loop has room and its output bound allows.
    func processLines(_ server: ControlServer) {
        withInput { processLines(&$0, server) }
    }

    private func processLines(_ lines: inout LineFramer, _ server: ControlServer) {
        while state.takesRequests && !state.isBatchOut {
            if sendBatch(&lines, server) { return }
            // Lines after a batch still being handed over wait for it, so that replies stay in line order.
            guard !state.isHandingOver else { return }
            guard let frame = lines.peek(atEnd: state.peerFinished) else { return }
            guard case .line(let line) = frame else {
                lineTooLong(&lines, server)
                return
            }
            guard !requests.awaitingControl, server.mayHandOver(self, line: line) else { return }
            var requests = self.requests
            lines.take()
            linesConsumed += 1
            if let request = RequestInterpreter.interpret(line, number: linesConsumed, state: &requests) {
                // An event's text is a slice of the connection's input. While the pass holds it, the next read
                // that changes the input copies the buffer (copy-on-write), so the text of a big buffer gets
                // bytes of its own instead; a small buffer (a one-at-a-time client's) is shared, saving an
                // allocation per event.
                if lines.bytes.capacity > Self.sharedInputBytes,
                    case .event(let json, let text?, let ticket) = request
                {
                    submit(.event(json, text: Array(text)[...], ticket), server)
                } else {
                    submit(request, server)
                }
            }
            self.requests = requests
            if requests.quit { state.drain() }
        }
    }

    /// Hands `input` to the loop and records the reply the connection is now owed.
    func submit(_ input: consuming ClientInput, _ server: ControlServer) {
        expectReply(estimate: RequestInterpreter.replyEstimate(input))
        server.loop.enqueue(input)
    }

    private func lineTooLong(_ lines: inout LineFramer, _ server: ControlServer) {
        linesConsumed += 1
        let message = "line \(linesConsumed) is longer than maxLineBytes (\(lines.maxLineBytes) bytes)"
        // Answered even under `reply off`, since the connection takes no more requests after it; counted as
        // rejected, since a line that long cannot be told apart from an event.
        submit(.rejected(.lineTooLong, message, ReplyTicket(connection: id, line: linesConsumed, mode: .on)), server)
        state.drain()
        lines.removeAll()
    }

    /// Answers the complete lines not yet handed to the loop with `ShuttingDown`. Lines out at the parse thread are
    /// handed over when they come back, and the rest answered then.
    func answerUnreadLines(_ server: ControlServer) {
        guard !state.isBatchOut else { return }
        // Every complete line, whatever its length: a line's own problems no longer matter.
        let (bytes, start) = withInput { ($0.bytes, $0.start) }
        var lines = LineFramer(bytes: bytes)
        lines.consume(start)
        while case .line(let bytes)? = lines.next() {
            let line = RequestLine.classify(bytes)
            linesConsumed += 1
            let ticket = ReplyTicket(connection: id, line: linesConsumed, mode: requests.replyMode)
            if case .blank = line {
            } else if line.isEventLike {
                submit(.rejected(.shuttingDown, "the daemon is shutting down", ticket), server)
            } else {
                submit(
                    .reply(JSONLine.error(.shuttingDown, "the daemon is shutting down", line: ticket.line), ticket),
                    server)
            }
        }
        withInput { $0.consume(lines.start - start) }
    }

    /// Whether it has nothing left to do: no more input, every reply written, no streams.
    func isDone(shuttingDown: Bool) -> Bool {
        // After EOF, lines still buffered (waiting for the loop or for output to drain) keep the connection open.
        let draining = state.phase == .draining
        let noMoreInput = (state.peerFinished && unconsumedInput == 0) || draining
        let streamsKeepItOpen = hasStreams && !draining && !shuttingDown
        return noMoreInput && !streamsKeepItOpen && awaitingLoop == 0 && pendingOutputBytes == 0
    }

    // MARK: - Batches

    /// Sends its next batch to the parse thread if one is due (see `sendBatch`).
    func sendNextBatch(_ server: ControlServer) {
        withInput { _ = sendBatch(&$0, server) }
    }

    /// Hands its complete lines to the parse thread when there are many; returns whether it did.
    private func sendBatch(_ lines: inout LineFramer, _ server: ControlServer) -> Bool {
        guard state.mayBatch(), lines.unconsumedCount >= ControlServer.batchThreshold, modelSizedOwed == 0 else {
            return false
        }
        let budget = server.settings.maxOutputBytes - pendingOutputBytes - owedBytes
        let room = server.loop.room() - server.inputsAwaitingHandOver
        guard budget >= 64 * 1024, room >= 64 else { return false }
        let start = lines.start
        let pending = lines.unconsumed.prefix(ControlServer.batchBytes)
        guard let lastNewline = pending.lastIndex(of: UInt8(ascii: "\n")),
            lastNewline - start >= ControlServer.batchThreshold
        else { return false }
        state.batchSent()
        server.interpret(
            LineBatch.Job(
                connection: id, bytes: Array(lines.bytes[start...lastNewline]), firstLine: linesConsumed + 1,
                state: requests, replyBudget: budget, maxInputs: room, maxLineBytes: lines.maxLineBytes))
        return true
    }

    /// A batch's lines were interpreted: its bytes are consumed and its line numbers used. A reload may have changed
    /// the peer's permissions while the batch was out: its lines were interpreted with the old ones, the lines after
    /// it get the new ones.
    func batchInterpreted(bytes: Int, lines: Int, state batchState: RequestState) {
        withInput { $0.consume(bytes) }
        linesConsumed += lines
        var merged = batchState
        merged.canRead = requests.canRead
        merged.canWrite = requests.canWrite
        requests = merged
    }

    /// A control command's reply is out: its later lines may be read.
    func controlAnswered() {
        requests.awaitingControl = false
    }

    // MARK: - Interest

    /// Brings its epoll interest up to date: readable while it wants input, writable while output waits.
    func updateInterest(_ server: ControlServer) throws(SystemError) {
        guard let registration else { return }
        let wanted = Epoll.Events(
            rawValue: (wantsInput(server) ? Epoll.Events.readable.rawValue : 0)
                | (pendingOutputBytes > 0 ? Epoll.Events.writable.rawValue : 0))
        guard wanted != interest else { return }
        try server.reactor.update(registration, to: wanted)
        interest = wanted
    }

    // MARK: - Replies

    /// Owes a reply the loop will give; `estimate` bounds its size (or is `modelSized`).
    func expectReply(estimate: Int) {
        withOwedEstimates { $0.append(estimate) }
        if estimate == Self.modelSized { modelSizedOwed += 1 } else { owedBytes += estimate }
    }

    /// The loop's reply to the oldest request waiting for one.
    func replied(_ reply: LoopReply) {
        guard owedHead < owedEstimates.count else { return }
        let estimate = owedEstimates[owedHead]
        owedHead += 1
        if estimate == Self.modelSized { modelSizedOwed -= 1 } else { owedBytes -= estimate }
        if owedHead == owedEstimates.count {
            withOwedEstimates { $0.empty(keepingAtMost: 4096) }
            owedHead = 0
        } else if owedHead > 4096 && owedHead * 2 > owedEstimates.count {
            let head = owedHead
            withOwedEstimates { $0.removeFirst(head) }
            owedHead = 0
        }
        switch reply {
        case .ack(let seq): withOutput { ReplyText.appendAck(seq, to: &$0) }
        case .line(let bytes): withOutput { $0.append(contentsOf: bytes) }
        case .none: break
        }
    }

    // MARK: - Streams

    /// Queues a `log` request behind the running stream.
    func queueLogStream(_ start: LogStreamStart) {
        var queue: [LogStreamStart] = []
        swap(&queue, &queuedLogStreams)
        queue.append(start)
        swap(&queue, &queuedLogStreams)
    }

    /// The next queued `log` request, if any.
    func nextLogStream() -> LogStreamStart? {
        guard !queuedLogStreams.isEmpty else { return nil }
        var queue: [LogStreamStart] = []
        swap(&queue, &queuedLogStreams)
        let next = queue.removeFirst()
        swap(&queue, &queuedLogStreams)
        return next
    }

    /// Queues a subscription line, replacing one not yet moved to the output buffer.
    func offerModel(_ line: [UInt8]) {
        // Swapped rather than assigned: releasing the line it replaces inside the access would make every access to
        // `pendingModel` checked at run time.
        var replaced: [UInt8]? = line
        swap(&replaced, &pendingModel)
    }

    /// Queues a trace line unless the client is too far behind (then counts it as dropped).
    func offerTrace(_ line: [UInt8], limit: Int) {
        guard output.count - outputStart < limit else {
            droppedTraces += 1
            return
        }
        let dropped = droppedTraces
        droppedTraces = 0
        withOutput { output in
            if dropped > 0 { output.append(contentsOf: ReplyText.droppedTraces(dropped)) }
            output.append(contentsOf: line)
        }
    }

    /// Appends stream lines (`log`) that `append` writes to the output buffer.
    func appendOutput<T>(_ append: (inout [UInt8]) -> T) -> T {
        withOutput(append)
    }

    // MARK: - Writing

    enum WriteOutcome {
        case drained
        case pending
        case failed(SystemError)
    }

    /// Writes as much buffered output as the socket takes now. `now` (the monotonic clock) is read only if output
    /// is left over, to date the last progress; `nil` reads it then.
    func write(now: UInt64? = nil) -> WriteOutcome {
        var progressed = false
        while true {
            if outputStart == output.count {
                outputStart = 0
                guard pendingModel != nil else {
                    withOutput { $0.empty(keepingAtMost: 1 << 20) }
                    lastProgress = 0
                    return .drained
                }
                var model: [UInt8]?
                swap(&model, &pendingModel)
                withOutput { $0 = model! }
            }
            switch send(output, from: outputStart) {
            case .failure(let error):
                return .failed(error)
            case .success(.transferred(let count)):
                outputStart += count
                progressed = true
            case .success(.wouldBlock), .success(.endOfFile):
                if progressed || lastProgress == 0 { lastProgress = now ?? SystemProcess.monotonicNanoseconds() }
                return .pending
            }
        }
    }

    /// Writes `bytes[from...]` as far as the socket takes it: the buffer is an argument rather than the stored
    /// property, so that the system call is made outside an access to it.
    private func send(_ bytes: [UInt8], from start: Int) -> Result<FileDescriptor.IOResult, SystemError> {
        bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemError) in try fd.write(UnsafeRawBufferPointer(rebasing: buffer[start...])) }
        }
    }

    /// Whether output has waited more than `limit` nanoseconds without progress (dated now if it was not yet).
    func stalled(now: UInt64, limit: UInt64) -> Bool {
        guard pendingOutputBytes > 0 else { return false }
        if lastProgress == 0 { lastProgress = now }
        return now - lastProgress > limit
    }
}
