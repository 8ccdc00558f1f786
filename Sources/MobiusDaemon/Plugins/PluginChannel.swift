import MobiusSystem

/// One running plugin process seen from the reactor: its stdin written without blocking, its stdout split into
/// lines (at most `maxLineBytes`), its stderr split into lines for the log, and its pidfd telling when it ended.
///
/// Reading stdout pauses while `mayRead` says no (the loop's queue is full): the plugin then blocks on its own
/// write, which is the backpressure docs/protocol.md asks for instead of unbounded memory.
final class PluginChannel {
    /// What happened on the channel.
    enum Event {
        /// One complete stdout line, without its newline.
        case line(ArraySlice<UInt8>)
        /// A stdout line longer than the limit (the first bytes of it).
        case oversized(prefix: [UInt8])
        /// One stderr line.
        case stderrLine(String)
        /// Stdout ended (end of file, or a read error): nothing the plugin does can reach the host any more.
        case stdoutClosed
        /// A write to stdin failed (EPIPE: the plugin closed it): nothing the host sends can reach the plugin.
        case stdinBroken
        /// The process ended (reaped).
        case exited(ChildProcess.Termination)
    }

    let process: PipedProcess
    private let reactor: Reactor
    private let onEvent: (Event) -> Void
    private var registrations: [Reactor.Registration] = []
    private var stdinRegistration: Reactor.Registration?
    private var stdoutRegistration: Reactor.Registration?
    private var pendingOutput: [UInt8] = []
    private var pendingOffset = 0
    /// Stdout's lines; a `\r` is the plugin's and stays in its line.
    private var stdoutLines: LineFramer
    private var partialError: [UInt8] = []
    private var stdoutOpen = true
    private var readingPaused = false
    private var stdinClosed = false
    private(set) var isClosed = false
    /// Reused for every stdout read (allocating and zeroing 64 KiB per read cost more than the messages).
    private var readBuffer = [UInt8](repeating: 0, count: PluginChannel.chunkSize)
    /// Asked before each stdout read: whether the loop takes what is read now.
    private let mayRead: () -> Bool

    static let stderrLineLimit = 4096
    private static let chunkSize = 65_536

    init(
        process: PipedProcess, reactor: Reactor, maxLineBytes: Int, mayRead: @escaping () -> Bool,
        onEvent: @escaping (Event) -> Void
    ) throws(SystemError) {
        self.process = process
        self.reactor = reactor
        self.mayRead = mayRead
        self.onEvent = onEvent
        stdoutLines = LineFramer(maxLineBytes: maxLineBytes, keepsCarriageReturn: true)
        try process.setParentEndsNonBlocking()
        stdoutRegistration = try reactor.register(
            process.output, for: .readable, handler: ClosureHandler { [unowned self] _ in readStdout() })
        registrations.append(
            try reactor.register(
                process.errorOutput, for: .readable, handler: ClosureHandler { [unowned self] _ in readStderr() }))
        registrations.append(
            try reactor.register(
                process.pidFD, for: .readable, handler: ClosureHandler { [unowned self] _ in processEnded() }))
    }

    // MARK: - Writing

    /// Queues one message line (with its newline) for the plugin's stdin; `flush()` writes what is queued (the host
    /// calls it at the end of each reactor round, so the effects of one pass go out in one write). Lost silently
    /// once stdin is closed or broken: the process is then ending, and its exit is reported.
    func send(_ line: [UInt8]) {
        send { $0.append(contentsOf: line) }
    }

    /// Queues what `write` appends (whole lines) to the stdin queue, with no line array in between.
    func send(writing write: (inout [UInt8]) -> Void) {
        guard !stdinClosed, !isClosed else { return }
        // The queue is written while moved out of the object (docs/architecture.md, "Exclusivity").
        var queue: [UInt8] = []
        swap(&queue, &pendingOutput)
        if pendingOffset == queue.count {
            queue.removeAll(keepingCapacity: true)
            pendingOffset = 0
        }
        write(&queue)
        swap(&queue, &pendingOutput)
    }

    /// Writes what is queued, as far as the pipe takes it now; the rest waits for the pipe to be writable.
    func flush() {
        guard unsentBytes > 0, !stdinClosed, !isClosed, stdinRegistration == nil else { return }
        flushPending()
        if unsentBytes > 0 { waitForWritable() }
    }

    private func waitForWritable() {
        guard stdinRegistration == nil, !stdinClosed else { return }
        stdinRegistration = try? reactor.register(
            process.input, for: .writable, handler: ClosureHandler { [unowned self] _ in flushPending() })
    }

    private func flushPending() {
        var queue: [UInt8] = []
        swap(&queue, &pendingOutput)
        var offset = pendingOffset
        let outcome = Self.write(queue, from: &offset, to: process.input)
        switch outcome {
        case .broken:
            // The plugin's end of the pipe is gone (EPIPE): nothing queued can reach it any more. Dropped
            // first, so that closing does not try to write it again.
            pendingOffset = 0
            closeStdin()
            onEvent(.stdinBroken)
            return
        case .pending:
            pendingOffset = offset
            swap(&queue, &pendingOutput)
            return
        case .written:
            break
        }
        queue.removeAll(keepingCapacity: queue.capacity <= 1 << 20)
        swap(&queue, &pendingOutput)
        pendingOffset = 0
        if let registration = stdinRegistration {
            reactor.unregister(registration)
            stdinRegistration = nil
        }
    }

    /// Bytes queued for stdin and not yet written.
    var unsentBytes: Int { pendingOutput.count - pendingOffset }

    private enum WriteOutcome {
        case written
        case pending
        case broken
    }

    /// Writes `queue` from `offset` as far as the pipe takes it now.
    private static func write(_ queue: [UInt8], from offset: inout Int, to input: FileDescriptor) -> WriteOutcome {
        while offset < queue.count {
            let result: FileDescriptor.IOResult
            do {
                result = try queue.withUnsafeBytes { buffer in
                    try input.write(UnsafeRawBufferPointer(rebasing: buffer[offset...]), socket: false)
                }
            } catch {
                return .broken
            }
            guard case .transferred(let count) = result else { return .pending }
            offset += count
        }
        return .written
    }

    /// Closes the plugin's stdin (after what is queued has been written, if it can be now): the end of the
    /// shutdown handshake.
    func closeStdin() {
        guard !stdinClosed else { return }
        if pendingOffset < pendingOutput.count { flushPending() }
        stdinClosed = true
        if let registration = stdinRegistration {
            reactor.unregister(registration)
            stdinRegistration = nil
        }
        process.input.close()
    }

    // MARK: - Reading

    /// Resumes reading stdout after `mayRead` said no.
    func resumeReading() {
        guard readingPaused, stdoutOpen, !isClosed, let registration = stdoutRegistration else { return }
        readingPaused = false
        try? reactor.update(registration, to: .readable)
        readStdout()
    }

    private func pauseReading() {
        guard !readingPaused, let registration = stdoutRegistration else { return }
        readingPaused = true
        try? reactor.update(registration, to: [])
    }

    private func readStdout() {
        guard stdoutOpen, !isClosed else { return }
        guard mayRead() else {
            pauseReading()
            return
        }
        let result: FileDescriptor.IOResult
        do {
            result = try readBuffer.withUnsafeMutableBytes { try process.output.read(into: $0) }
        } catch {
            stdoutEnded()
            return
        }
        switch result {
        case .wouldBlock: return
        case .endOfFile: stdoutEnded()
        case .transferred(let count):
            stdoutLines.append(readBuffer[..<count])
            splitLines()
        }
    }

    private func stdoutEnded() {
        stopReadingStdout()
        onEvent(.stdoutClosed)
    }

    private func stopReadingStdout() {
        stdoutOpen = false
        if let registration = stdoutRegistration {
            reactor.unregister(registration)
            stdoutRegistration = nil
        }
    }

    /// Hands on each complete stdout line; one over the limit is reported as soon as it is known and dropped.
    private func splitLines() {
        while !isClosed, let frame = stdoutLines.next() {
            switch frame {
            case .line(let line): onEvent(.line(line))
            case .tooLong(let prefix): onEvent(.oversized(prefix: Array(prefix)))
            case .longLineEnded: break
            }
        }
    }

    private func readStderr() {
        var chunk = [UInt8](repeating: 0, count: 8192)
        let result = try? chunk.withUnsafeMutableBytes { try process.errorOutput.read(into: $0) }
        switch result {
        case .transferred(let count)?:
            for byte in chunk[..<count] {
                if byte == UInt8(ascii: "\n") {
                    emitStderrLine()
                } else if partialError.count < Self.stderrLineLimit {
                    partialError.append(byte)
                } else {
                    emitStderrLine()
                    partialError.append(byte)
                }
            }
        case .wouldBlock?: return
        case .endOfFile?, nil:
            if !partialError.isEmpty { emitStderrLine() }
            if let index = registrations.firstIndex(where: { $0.fd == process.errorOutput }) {
                reactor.unregister(registrations.remove(at: index))
            }
        }
    }

    private func emitStderrLine() {
        let line = DaemonLog.text(partialError[...])
        partialError.removeAll(keepingCapacity: true)
        onEvent(.stderrLine(line))
    }

    private func processEnded() {
        guard let termination = process.reap() else { return }
        // What the plugin wrote before it ended still counts (its last lines, its last stderr).
        if stdoutOpen && !readingPaused { readStdout() }
        readStderr()
        if let index = registrations.firstIndex(where: { $0.fd == process.pidFD }) {
            reactor.unregister(registrations.remove(at: index))
        }
        onEvent(.exited(termination))
    }

    /// Unregisters and closes every descriptor. The process itself is the caller's to end.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        for registration in registrations { reactor.unregister(registration) }
        registrations.removeAll()
        stopReadingStdout()
        if let registration = stdinRegistration { reactor.unregister(registration) }
        stdinRegistration = nil
        if !stdinClosed { process.input.close() }
        stdinClosed = true
        process.output.close()
        process.errorOutput.close()
        process.pidFD.close()
    }
}
