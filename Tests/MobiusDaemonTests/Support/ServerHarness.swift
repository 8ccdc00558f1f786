import MobiusJSON
import MobiusSystem
import MobiusTestSupport

@testable import MobiusDaemon

/// A control server on a reactor of its own, run on the test's thread, with a fake loop: each round it answers
/// what the server queued (an ack per event, a fixed line per request) the way a pass would, then ends the round as
/// the runtime does. Clients are socket pairs handed to the server as if accepted.
final class ServerHarness {
    let reactor: Reactor
    private(set) var server: ControlServer!
    /// Stands in for the listening socket; nobody connects to it.
    private let listener: SocketPair
    /// Where `log` streams would read (the fake loop starts none): their source, held unowned by them.
    private let journal: DaemonJournal
    /// Inputs the loop has not taken yet.
    private var queued: [ClientInput] = []
    /// Every input the server handed the loop, as "event TEXT", "request NAME", "rejected CODE" or "reply".
    private(set) var handed: [String] = []
    /// How many inputs the fake loop's queue takes.
    var capacity = 65_536
    /// Whether the fake loop runs passes (off: what is queued stays queued).
    var answering = true
    /// The size of the line a `status` request is answered with.
    var statusReplyBytes = 10_000
    private var roomWaiters: [() -> Void] = []
    private var seq: UInt64 = 0
    private var stopWhen: () -> Bool = { true }
    private var ticking = false

    init(settings: ServerSettings = ServerSettings(access: .defaults(daemonUID: SystemProcess.userID))) throws {
        reactor = try Reactor()
        listener = try SocketPair()
        journal = try DaemonJournal.open(settings: JournalSettings(), path: nil, log: DaemonLog(threshold: .error))
        let port = LoopPort(
            room: { [unowned self] in capacity - queued.count },
            commandRoom: { [unowned self] in capacity - queued.count },
            enqueue: { [unowned self] input in take(input) },
            notifyWhenRoom: { [unowned self] waiter in roomWaiters.append(waiter) },
            eventsAsText: false)
        server = try ControlServer(
            loop: port, reactor: reactor, listener: listener.first, settings: settings,
            log: DaemonLog(threshold: .error), parser: BlockingWorker(name: "test-parse", stackSize: 4 << 20),
            logSource: journal, commands: NoControlCommands(), foreignReplies: nil)
        reactor.atEndOfEachRound { [unowned self] in
            if answering { runPass() }
            server.continueHandOvers()
            server.endOfRound()
            if stopWhen() { reactor.stop() }
        }
    }

    deinit {
        server.closeAll()
        listener.close()
    }

    /// A client connected to the server: its end of a socket pair, non-blocking, and the server's connection.
    func connect() throws -> TestClient {
        let pair = try SocketPair()
        try pair.second.setNonBlocking()
        let before = Set(server.connections.values.map(\.id))
        server.admit(pair.second)
        guard let connection = server.connections.values.first(where: { !before.contains($0.id) }) else {
            throw HarnessError(message: "the server refused the connection")
        }
        return try TestClient(fd: pair.first, id: connection.id)
    }

    func connection(_ client: TestClient) -> ClientConnection? {
        server.connections[client.id]
    }

    /// Runs reactor rounds until `done` holds or `timeout` (times `TestTime.scale`) passes; returns whether it holds.
    @discardableResult
    func run(timeout: UInt64 = 30_000_000_000, until done: @escaping () -> Bool) -> Bool {
        let deadline = SystemProcess.monotonicNanoseconds() + TestTime.scaled(nanoseconds: timeout)
        stopWhen = { done() || SystemProcess.monotonicNanoseconds() >= deadline }
        tick()
        try? reactor.run()
        return done()
    }

    /// Sends all of `text`, running rounds while the socket is full (the server reads meanwhile).
    func send(_ text: String, from client: TestClient) {
        var rest = Array(text.utf8)[...]
        while !rest.isEmpty {
            let sent = client.sendSome(rest)
            rest = rest.dropFirst(sent)
            if !rest.isEmpty { run(for: 1_000_000) }
        }
    }

    /// Runs reactor rounds for `nanoseconds`.
    func run(for nanoseconds: UInt64) {
        run(timeout: nanoseconds) { false }
    }

    /// Wakes the reactor every millisecond, so `run` looks at its condition even when no descriptor is ready.
    private func tick() {
        guard !ticking else { return }
        ticking = true
        reactor.after(nanoseconds: 1_000_000) { [unowned self] in
            ticking = false
            tick()
        }
    }

    private func take(_ input: consuming ClientInput) {
        switch input {
        case .event(_, let text, _): handed.append("event " + String(decoding: text ?? [], as: UTF8.self))
        case .request(let request, _): handed.append("request \(request)")
        case .rejected(let code, _, _): handed.append("rejected \(code.rawValue)")
        case .reply: handed.append("reply")
        case .disconnected: handed.append("disconnected")
        }
        queued.append(input)
    }

    /// One pass over everything queued, answered in order.
    private func runPass() {
        guard !queued.isEmpty else { return }
        // Taken first, as a pass takes its inputs: delivering lets connections queue more for the next pass.
        let inputs = queued
        queued.removeAll()
        var outputs: [PassOutput] = []
        for input in inputs {
            switch input {
            case .event(_, _, let ticket):
                seq += 1
                outputs.append(.reply(ticket.connection, .ack(seq)))
            case .request(let request, let ticket):
                var line = Array("{\"ok\":true,\"line\":\(ticket.line),\"request\":\"\(request)\"".utf8)
                if case .status = request {
                    line += Array(",\"pad\":\"".utf8)
                    line += [UInt8](repeating: UInt8(ascii: "x"), count: max(0, statusReplyBytes - line.count - 3))
                    line += Array("\"".utf8)
                }
                outputs.append(.reply(ticket.connection, .line(line + Array("}\n".utf8))))
            case .rejected(let code, let message, let ticket):
                outputs.append(.reply(ticket.connection, .line(JSONLine.error(code, message, line: ticket.line))))
            case .reply(let line, let ticket):
                outputs.append(.reply(ticket.connection, .line(line)))
            case .disconnected:
                break
            }
        }
        server.deliver(outputs, writeNow: false)
        let waiters = roomWaiters
        roomWaiters.removeAll()
        for waiter in waiters { waiter() }
    }
}

/// The client's end of a connection: writes, and reads what has arrived without blocking.
final class TestClient {
    let fd: FileDescriptor
    let id: ConnectionID
    /// Every byte received so far.
    private(set) var received: [UInt8] = []
    private(set) var atEnd = false
    /// How many complete lines `received` holds.
    private(set) var lineCount = 0

    init(fd: FileDescriptor, id: ConnectionID) throws {
        self.fd = fd
        self.id = id
        try fd.setNonBlocking()
    }

    /// Writes as much of `bytes` as the socket takes now; returns how many bytes.
    func sendSome(_ bytes: ArraySlice<UInt8>) -> Int {
        var sent = 0
        while sent < bytes.count {
            let result = try? bytes.withUnsafeBytes { try fd.write(UnsafeRawBufferPointer(rebasing: $0[sent...])) }
            guard case .transferred(let count)? = result else { break }
            sent += count
        }
        return sent
    }

    /// Reads what has arrived; returns how many bytes.
    @discardableResult
    func pump(max: Int = .max) -> Int {
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        while total < max, !atEnd {
            let want = min(buffer.count, max - total)
            let result = try? buffer.withUnsafeMutableBytes {
                try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<want]))
            }
            switch result {
            case .transferred(let count)?:
                received += buffer[..<count]
                lineCount += buffer[..<count].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
                total += count
            case .endOfFile?, nil: atEnd = true
            case .wouldBlock?: return total
            }
        }
        return total
    }

    /// The complete lines received so far.
    var lines: [String] {
        String(decoding: received, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .map(String.init)
    }

    func close() {
        fd.close()
    }
}

/// The harness has no runtime to reload or restart plugins: its fake loop never hands the server a control command.
final class NoControlCommands: ControlCommandHandler {
    func perform(_ command: ControlCommand, line: Int, reply: @escaping ([UInt8]) -> Void) {
        reply(JSONLine.error(.unavailable, "the server harness carries out no control commands", line: line))
    }
}

struct HarnessError: Error {
    let message: String
}
