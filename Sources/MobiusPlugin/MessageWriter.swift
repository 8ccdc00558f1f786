import MobiusJSON
import MobiusSystem

/// Writes JSON-RPC messages to the host, one line each, from any thread.
///
/// Writers append to a pending buffer; whoever finds no write in progress writes the buffer out, so messages from
/// concurrent handlers go out together in one `write` when the host is busy, and in order of their `send`. The
/// buffer is bounded: past ``maxPendingBytes`` a sender waits for the write in progress (backpressure from a host
/// that does not read). A line longer than the host's limit is never written (see `send`).
///
/// The thread that reads stdin sends its replies `deferred`: they wait in the buffer until it has handled every
/// line it has already read and calls ``flushPending()`` before it blocks, so a burst of requests is answered
/// with one `write` instead of one per reply.
final class MessageWriter: @unchecked Sendable {
    // @unchecked: every stored var is read and written only inside `condition.withLock`.
    private let output: FileDescriptor
    private let condition = ThreadCondition()
    private var pending: [UInt8] = []
    private var writing = false
    private var failed = false
    /// The longest line the host takes, not counting the newline.
    let maxLineBytes: Int
    /// How much output may wait while a write is in progress.
    let maxPendingBytes: Int

    init(output: FileDescriptor, maxLineBytes: Int, maxPendingBytes: Int = 1 << 20) {
        self.output = output
        self.maxLineBytes = maxLineBytes
        self.maxPendingBytes = maxPendingBytes
    }

    /// Whether a write to the host failed (it has gone); later messages are dropped.
    var hasFailed: Bool { condition.withLock { failed } }

    /// Waits until everything sent so far has been written (or the host has gone): before the process exits, a
    /// reply another thread's write in progress picked up must still go out.
    func flush() {
        condition.withLock {
            while writing && !failed { condition.wait() }
        }
    }

    /// Sends `message` as one line. Returns `false`, writing nothing, when its encoding exceeds ``maxLineBytes``
    /// (the caller decides what to send instead) or when the host has gone.
    /// `deferred` leaves it in the buffer for ``flushPending()`` to take, unless the buffer has grown past
    /// ``deferredFlushBytes`` or another thread is writing (then it goes as any other message).
    @discardableResult
    func send(_ message: JSONValue, deferred: Bool = false) -> Bool {
        send(line: message.encoded(), deferred: deferred)
    }

    /// `send` for a message already encoded (`line`: its JSON without the newline).
    @discardableResult
    func send(line encoded: [UInt8], deferred: Bool = false) -> Bool {
        var line = encoded
        guard line.count <= maxLineBytes else { return false }
        line.append(UInt8(ascii: "\n"))
        if deferred {
            let held: Bool? = condition.withLock {
                if failed { return nil }
                guard !writing, pending.count + line.count < Self.deferredFlushBytes else { return false }
                pending += line
                return true
            }
            guard let held else { return false }
            if held { return true }
        }
        return write(line)
    }

    /// How much deferred output may wait before a deferred send writes it out.
    static let deferredFlushBytes = 64 << 10

    /// Writes out what deferred sends left in the buffer, unless a write in progress will take it.
    func flushPending() {
        _ = write([])
    }

    /// Appends `bytes` (whole lines) and writes them out unless another thread is writing already.
    private func write(_ bytes: [UInt8]) -> Bool {
        var chunk: [UInt8] = []
        let mustWrite: Bool = condition.withLock {
            while writing && !failed && pending.count >= maxPendingBytes { condition.wait() }
            if failed { return false }
            pending += bytes
            if writing || pending.isEmpty { return false }
            writing = true
            swap(&chunk, &pending)
            return true
        }
        guard mustWrite else { return !hasFailed }
        while true {
            var ok = true
            do { try output.writeAll(chunk) } catch { ok = false }
            chunk.removeAll(keepingCapacity: true)
            let more: Bool = condition.withLock {
                if !ok {
                    failed = true
                    pending = []
                }
                if failed || pending.isEmpty {
                    writing = false
                    condition.broadcast()
                    return false
                }
                swap(&chunk, &pending)
                condition.broadcast()
                return true
            }
            if !more { return ok }
        }
    }
}
