import MobiusSystem

/// One client of the control socket: buffered input, what it is owed, buffered output, and its streams.
///
/// Every reply a connection gets comes out of a loop pass, in request order (requests the server answers alone go
/// through the pass too), so replies need no reordering here: the connection only counts what it is owed.
final class ClientConnection: ReactorHandler {
    // Every property is touched only by the reactor thread.

    let id: ConnectionID
    let fd: FileDescriptor
    let peer: PeerCredentials
    unowned let owner: any ClientConnectionOwner
    // Owned by the reactor thread: every stored property below is touched only there and never borrowed across a
    // call that touches it again, so runtime exclusivity checks are off for them (they were about a quarter of the
    // instructions per request at a trickle, measured with callgrind).
    @exclusivity(unchecked) var registration: Reactor.Registration?
    /// The epoll interest currently registered.
    // `Events(rawValue: 0)` rather than `[]`: the array-literal initializer runs unspecialized generic code
    // across the module boundary, on every update.
    @exclusivity(unchecked) var interest = Epoll.Events(rawValue: 0)
    /// What earlier lines decided for later ones; `nil` until the peer's permissions are known (looking up its
    /// groups is only needed when access lists name groups).
    @exclusivity(unchecked) var requests: RequestState?
    /// Request lines consumed so far (the next line's number is this plus one).
    @exclusivity(unchecked) var linesConsumed = 0

    // Input: bytes not yet consumed are input[inputStart...].
    @exclusivity(unchecked) var input: [UInt8] = []
    @exclusivity(unchecked) var inputStart = 0
    /// Where the search for the next newline resumes (absolute index into `input`).
    @exclusivity(unchecked) var scanFrom = 0
    @exclusivity(unchecked) var readClosed = false
    /// The loop's queue was full: lines wait until it has room.
    @exclusivity(unchecked) var pausedForQueue = false
    /// No more requests are read (after `quit`, `LineTooLong`, or during shutdown).
    @exclusivity(unchecked) var closeAfterFlush = false

    // What the loop still owes, oldest first: an estimate of each reply's size, for the output bound.
    @exclusivity(unchecked) private var owedEstimates: [Int] = []
    @exclusivity(unchecked) private var owedHead = 0
    /// The sum of `owedEstimates` not yet answered.
    @exclusivity(unchecked) private(set) var owedBytes = 0
    /// Replies owed whose size is the model's (`model`, `subscribe`): lines wait while one is owed.
    @exclusivity(unchecked) private(set) var modelSizedOwed = 0

    // Output: bytes not yet written are output[outputStart...].
    @exclusivity(unchecked) var output: [UInt8] = []
    @exclusivity(unchecked) var outputStart = 0
    /// The newest subscription line not yet moved to `output` (latest-wins).
    @exclusivity(unchecked) var pendingModel: [UInt8]?
    /// Trace lines dropped because the client reads too slowly.
    @exclusivity(unchecked) var droppedTraces = 0
    /// Whether the connection is already on the server's list to flush this round.
    @exclusivity(unchecked) var queuedForFlush = false
    /// A batch of its lines is at the parse thread: nothing else of it goes to the loop until the batch is back.
    @exclusivity(unchecked) var batchOut = false
    /// A batch of its lines is back but not all its inputs are with the loop yet (`ControlServer.continueHandOvers`):
    /// its later lines wait, apart from the next batch, which may go to the parse thread meanwhile.
    @exclusivity(unchecked) var handingOver = false
    /// The last batch came back without a line: the next line is interpreted on the reactor.
    @exclusivity(unchecked) var skipBatchOnce = false
    /// Cleared when the server closes the connection (checked instead of looking the id up).
    @exclusivity(unchecked) var isOpen = true
    /// Whether it is on the server's list of connections whose lines wait for owed replies or output to drain.
    @exclusivity(unchecked) var waitingToRequest = false
    /// The connection's `log` stream, while it runs.
    @exclusivity(unchecked) var logStream: LogStream?
    /// Further `log` requests of the connection, streamed one after another (at most `maxQueuedLogStreams`).
    @exclusivity(unchecked) var queuedLogStreams: [LogStreamStart] = []
    /// Monotonic time of the last write progress while output was pending (0: none pending).
    @exclusivity(unchecked) var lastProgress: UInt64 = 0

    /// Stands for "as big as the model": such a reply is owed at most once at a time.
    static let modelSized = -1

    init(id: ConnectionID, fd: FileDescriptor, peer: PeerCredentials, owner: any ClientConnectionOwner) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.owner = owner
    }

    func reactorReady(_ events: Epoll.Events) {
        owner.connectionReady(self, events)
    }

    var hasStreams: Bool { logStream != nil || (requests.map { $0.subscribed || $0.monitoring } ?? false) }

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

    // MARK: - Replies

    /// Owes a reply the loop will give; `estimate` bounds its size (or is `modelSized`).
    func expectReply(estimate: Int) {
        owedEstimates.append(estimate)
        if estimate == Self.modelSized { modelSizedOwed += 1 } else { owedBytes += estimate }
    }

    /// The loop's reply to the oldest request waiting for one.
    func replied(_ reply: LoopReply) {
        guard owedHead < owedEstimates.count else { return }
        let estimate = owedEstimates[owedHead]
        owedHead += 1
        if estimate == Self.modelSized { modelSizedOwed -= 1 } else { owedBytes -= estimate }
        if owedHead == owedEstimates.count {
            owedEstimates.empty(keepingAtMost: 4096)
            owedHead = 0
        } else if owedHead > 4096 && owedHead * 2 > owedEstimates.count {
            owedEstimates.removeFirst(owedHead)
            owedHead = 0
        }
        switch reply {
        case .ack(let seq): ReplyText.appendAck(seq, to: &output)
        case .line(let bytes): output.append(contentsOf: bytes)
        case .none: break
        }
    }

    // MARK: - Streams

    /// Queues a subscription line, replacing one not yet moved to the output buffer.
    func offerModel(_ line: [UInt8]) {
        pendingModel = line
    }

    /// Queues a trace line unless the client is too far behind (then counts it as dropped).
    func offerTrace(_ line: [UInt8], limit: Int) {
        guard output.count - outputStart < limit else {
            droppedTraces += 1
            return
        }
        if droppedTraces > 0 {
            output.append(contentsOf: ReplyText.droppedTraces(droppedTraces))
            droppedTraces = 0
        }
        output.append(contentsOf: line)
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
                output.empty(keepingAtMost: 1 << 20)
                outputStart = 0
                guard let model = pendingModel else {
                    lastProgress = 0
                    return .drained
                }
                pendingModel = nil
                output = model
            }
            let result = output.withUnsafeBytes { buffer in
                Result { () throws(SystemError) in
                    try fd.write(UnsafeRawBufferPointer(rebasing: buffer[outputStart...]))
                }
            }
            switch result {
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
}
