/// A control connection's lifecycle as values: where it is (`Phase`), what the parse thread has of its lines
/// (`Batching`), and what its buffered lines wait for (`Waits`). Each transition is a function that says what the
/// server does next (`Action`), so a state that cannot happen cannot be written.
struct ConnectionState {
    enum Phase: Equatable {
        /// It reads and hands its requests to the loop.
        case open
        /// It takes no more requests (after `quit`, `LineTooLong`, or at shutdown): it writes what it is owed, then
        /// closes.
        case draining
        case closed
    }

    /// Where its lines are interpreted.
    enum Batching: Equatable {
        /// On the reactor when there are few, as a batch at the parse thread when there are many.
        case inline
        /// The last batch came back without a line (its first was too long for a batch): the next line is the
        /// reactor's, or the batch would come back empty forever.
        case inlineOnce
        /// A batch is at the parse thread: nothing else of the connection goes to the loop until it is back.
        case out
        /// A batch is back and its inputs go to the loop a share per round: later lines wait, but the next batch
        /// may go to the parse thread.
        case handingOver
        /// A batch is being handed over and the next one is at the parse thread.
        case handingOverNextOut
    }

    /// What buffered lines wait for while the connection is open.
    struct Waits: OptionSet {
        let rawValue: UInt8
        /// Room in the loop's queue: the loop calls back once it has some.
        static let room = Waits(rawValue: 1)
        /// Owed replies or unsent output to shrink: the connection is on the server's list for it.
        static let output = Waits(rawValue: 2)
    }

    /// What the server does after a transition.
    enum Action: Equatable {
        case none
        /// Ask the loop to call back when it has room.
        case askForRoom
        /// Put the connection on the list of those waiting for their output to drain.
        case joinOutputWaiters
        /// Go on with the buffered lines.
        case resume
    }

    private(set) var phase = Phase.open
    private(set) var batching = Batching.inline
    private(set) var waits = Waits()
    /// The peer shut down its side: what is buffered is all the input there will be.
    private(set) var peerFinished = false
    /// On the server's list of connections to flush at the end of the round.
    private(set) var queuedForFlush = false

    var isOpen: Bool { phase != .closed }
    /// Whether it hands the loop requests (not while draining or closed).
    var takesRequests: Bool { phase == .open }
    var isBatchOut: Bool { batching == .out || batching == .handingOverNextOut }
    var isHandingOver: Bool { batching == .handingOver || batching == .handingOverNextOut }

    // MARK: - Phase

    /// No more requests: what waited is dropped, what is owed is still written.
    mutating func drain() {
        guard phase == .open else { return }
        phase = .draining
        waits = []
    }

    /// Returns whether it was open (a second close does nothing).
    mutating func close() -> Bool {
        guard phase != .closed else { return false }
        phase = .closed
        waits = []
        return true
    }

    mutating func peerShutDown() {
        peerFinished = true
    }

    // MARK: - Waiting

    /// The loop's queue is full.
    mutating func waitForRoom() -> Action {
        startWaiting(for: .room, then: .askForRoom)
    }

    /// The loop has room again.
    mutating func roomArrived() -> Action {
        stopWaiting(for: .room)
    }

    /// Its output bound holds its next request back.
    mutating func waitForOutput() -> Action {
        startWaiting(for: .output, then: .joinOutputWaiters)
    }

    /// Its output shrank, or it came off the server's list of output waiters.
    mutating func outputWaitEnded() -> Action {
        stopWaiting(for: .output)
    }

    /// Starts a wait, once: `action` the first time, nothing while it already waits or takes no requests.
    private mutating func startWaiting(for wait: Waits, then action: Action) -> Action {
        guard takesRequests, !waits.contains(wait) else { return .none }
        waits.insert(wait)
        return action
    }

    /// Ends a wait; an open connection then resumes reading.
    private mutating func stopWaiting(for wait: Waits) -> Action {
        waits.remove(wait)
        return isOpen ? .resume : .none
    }

    // MARK: - Batches

    /// Whether a batch may go to the parse thread now; a skipped turn (`inlineOnce`) is used up.
    mutating func mayBatch() -> Bool {
        switch batching {
        case .inline, .handingOver: return true
        case .inlineOnce:
            batching = .inline
            return false
        case .out, .handingOverNextOut: return false
        }
    }

    mutating func batchSent() {
        switch batching {
        case .inline, .inlineOnce: batching = .out
        case .handingOver: batching = .handingOverNextOut
        case .out, .handingOverNextOut: break
        }
    }

    /// A batch is back from the parse thread; returns whether the batch before it is still being handed over (it
    /// then goes first, whole).
    mutating func batchCameBack() -> Bool {
        let earlier = batching == .handingOverNextOut
        batching = .handingOver
        return earlier
    }

    /// The last input of the batch being handed over is with the loop; `empty`: the batch had no line. Returns
    /// whether its next lines may go on now (not while a later batch is out).
    mutating func handedOver(empty: Bool) -> Bool {
        switch batching {
        case .handingOverNextOut:
            batching = .out
            return false
        case .handingOver:
            batching = empty ? .inlineOnce : .inline
            return true
        case .inline, .inlineOnce, .out:
            return !isBatchOut
        }
    }

    // MARK: - Flushing

    /// Returns whether it is new on the list of connections to flush.
    mutating func queueForFlush() -> Bool {
        guard !queuedForFlush else { return false }
        queuedForFlush = true
        return true
    }

    mutating func flushDequeued() {
        queuedForFlush = false
    }
}
