import MobiusSystem

/// One client of the control socket, as the I/O thread sees it: buffered input, replies owed in request order,
/// buffered output, and its streams.
final class ClientConnection {
    // Every property is touched only by the I/O thread and never borrowed across a call that touches it again,
    // so the runtime exclusivity checks (a sixth of the ingest profile) are switched off for them.

    /// Replies owed, in line order. Replies known at once are written at once unless an earlier request still
    /// waits for the loop; then they queue behind it. Consecutive requests waiting for the loop share one slot.
    enum Slot {
        /// This many requests in a row wait for the loop (which answers a connection's requests in order).
        case awaitingLoop(Int)
        case ready(LoopReply)
    }

    let id: ConnectionID
    let fd: FileDescriptor
    let peer: PeerCredentials
    let canRead: Bool
    let canWrite: Bool
    @exclusivity(unchecked) var replyMode: ReplyMode = .on
    /// Request lines consumed so far (the next line's number is this plus one).
    @exclusivity(unchecked) var linesConsumed = 0

    // Input: bytes not yet consumed are input[inputStart...].
    @exclusivity(unchecked) var input: [UInt8] = []
    @exclusivity(unchecked) var inputStart = 0
    /// Where the search for the next newline resumes (absolute index into `input`).
    @exclusivity(unchecked) var scanFrom = 0
    @exclusivity(unchecked) var readClosed = false
    /// The loop's inbound queue refused a request: reading waits for `.inboundSpace`.
    @exclusivity(unchecked) var pausedForQueue = false
    /// No more requests are read (after `quit`, `LineTooLong`, or during shutdown).
    @exclusivity(unchecked) var closeAfterFlush = false

    // Replies in request order.
    @exclusivity(unchecked) private var slots: [Slot] = []
    @exclusivity(unchecked) private var slotHead = 0
    @exclusivity(unchecked) private(set) var awaitingLoop = 0

    // Output: bytes not yet written are output[outputStart...].
    @exclusivity(unchecked) var output: [UInt8] = []
    @exclusivity(unchecked) var outputStart = 0
    /// The newest subscription line not yet moved to `output` (latest-wins).
    @exclusivity(unchecked) var pendingModel: [UInt8]?
    /// Trace lines dropped because the client reads too slowly.
    @exclusivity(unchecked) var droppedTraces = 0
    @exclusivity(unchecked) var subscribed = false
    @exclusivity(unchecked) var monitoring = false
    /// Monotonic time of the last write progress while output was pending.
    @exclusivity(unchecked) var lastProgress: UInt64 = 0
    /// The epoll interest currently registered.
    @exclusivity(unchecked) var registered: Epoll.Events = []

    init(id: ConnectionID, fd: FileDescriptor, peer: PeerCredentials, canRead: Bool, canWrite: Bool) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.canRead = canRead
        self.canWrite = canWrite
    }

    var hasStreams: Bool { subscribed || monitoring }

    var pendingOutputBytes: Int { output.count - outputStart + (pendingModel?.count ?? 0) }

    /// Whether every owed reply has been written.
    var repliesSettled: Bool { slotHead == slots.count }

    // MARK: - Replies

    /// Owes a reply the loop will give.
    func expectLoopReply() {
        awaitingLoop += 1
        if slots.count > slotHead, case .awaitingLoop(let count) = slots[slots.count - 1] {
            slots[slots.count - 1] = .awaitingLoop(count + 1)
        } else {
            slots.append(.awaitingLoop(1))
        }
    }

    /// Owes a reply that is known now.
    func reply(_ reply: LoopReply) {
        if slotHead == slots.count {
            write(reply)
        } else {
            slots.append(.ready(reply))
        }
    }

    /// The loop's answer to the oldest request waiting for it. Ready replies are always written as soon as nothing
    /// waits before them, so that request's slot is the head.
    func loopReplied(_ reply: LoopReply) {
        guard slotHead < slots.count, case .awaitingLoop(let count) = slots[slotHead] else { return }
        awaitingLoop -= 1
        write(reply)
        if count > 1 {
            slots[slotHead] = .awaitingLoop(count - 1)
            return
        }
        slotHead += 1
        while slotHead < slots.count, case .ready(let next) = slots[slotHead] {
            write(next)
            slotHead += 1
        }
        if slotHead == slots.count {
            slots.removeAll(keepingCapacity: true)
            slotHead = 0
        } else if slotHead > 1024 && slotHead * 2 > slots.count {
            slots.removeFirst(slotHead)
            slotHead = 0
        }
    }

    private func write(_ reply: LoopReply) {
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

    /// Writes as much buffered output as the socket takes now.
    func write(now: UInt64) -> WriteOutcome {
        while true {
            if outputStart == output.count {
                output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
                outputStart = 0
                guard let model = pendingModel else { return .drained }
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
                lastProgress = now
            case .success(.wouldBlock), .success(.endOfFile):
                return .pending
            }
        }
    }
}
