import MobiusJSON

extension ControlServer {
    /// The commands `help` lists, in that order.
    static var commandNames: [String] {
        ["send", "model", "subscribe", "log", "monitor", "status", "hello", "reply", "ping", "help", "quit"]
    }

    /// Turns one request line (its number is `linesConsumed`) into an input for the loop's next pass. Every line
    /// but a blank one becomes exactly one input, so replies come back in line order.
    func handleLine(_ bytes: ArraySlice<UInt8>, on connection: ClientConnection) {
        let number = connection.linesConsumed
        switch RequestLine.classify(bytes) {
        case .blank:
            return
        case .event(let text):
            submitEvent(text, on: connection, line: number)
        case .invalid(let code, let message, let eventLike):
            fail(connection, code, message, line: number, eventLike: eventLike)
        case .command(let name, let argument):
            handleCommand(name, argument: argument, on: connection, line: number)
        }
    }

    /// Hands `input` to the loop and records the reply the connection is now owed.
    func submit(_ input: ClientInput, on connection: ClientConnection) {
        connection.expectReply(estimate: Self.replyEstimate(input))
        loop.enqueue(input)
    }

    /// An upper bound on the size of the reply to `input`, for the output bound; `modelSized` when it is as big as
    /// the model.
    static func replyEstimate(_ input: ClientInput) -> Int {
        switch input {
        case .event, .rejected:
            // An ack, or an error whose message is capped (EventRejection.maxMessageBytes and short texts).
            return 1024
        case .reply(let line, _):
            return line.count
        case .request(let request, _):
            switch request {
            case .model, .subscribe: return ClientConnection.modelSized
            case .status: return 16 * 1024
            case .ping, .hello, .monitor: return 512
            }
        case .disconnected:
            return 0
        }
    }

    private func ticket(_ connection: ClientConnection, _ line: Int) -> ReplyTicket {
        ReplyTicket(connection: connection.id, line: line, mode: connection.replyMode)
    }

    private func submitEvent(_ text: ArraySlice<UInt8>, on connection: ClientConnection, line: Int) {
        guard connection.permissions?.write == true else {
            fail(
                connection, .permissionDenied, "uid \(connection.peer.uid) may not send events (access.write)",
                line: line, eventLike: true)
            return
        }
        let value: JSONValue
        do {
            value = try JSONWire.parse(text)
        } catch {
            fail(connection, .invalidJSON, "invalid JSON: \(error)", line: line, eventLike: true)
            return
        }
        submit(.event(value, ticket(connection, line)), on: connection)
    }

    private func handleCommand(_ name: String, argument: ArraySlice<UInt8>, on connection: ClientConnection, line: Int)
    {
        guard Self.commandNames.contains(name) else {
            fail(connection, .unknownCommand, "unknown command \"\(name)\"; send `help` for the list", line: line)
            return
        }
        if name == "send" {
            guard !argument.isEmpty else {
                fail(
                    connection, .invalidArgument, "send needs a JSON event: send {\"type\":\"…\"}", line: line,
                    eventLike: true)
                return
            }
            submitEvent(argument, on: connection, line: line)
            return
        }
        guard connection.permissions?.read == true else {
            fail(connection, .permissionDenied, "uid \(connection.peer.uid) may not read (access.read)", line: line)
            return
        }
        switch name {
        case "model", "subscribe":
            switch RequestArguments.pathArgument(argument) {
            case .success(let path):
                if name == "model" {
                    submit(.request(.model(path: path), ticket(connection, line)), on: connection)
                } else {
                    connection.subscribed = true
                    submit(.request(.subscribe(path: path), ticket(connection, line)), on: connection)
                }
            case .failure(let problem):
                fail(connection, .invalidArgument, "\(name): \(problem)", line: line)
            }
            return
        case "log":
            if let problem = RequestArguments.logArgumentProblem(argument) {
                fail(connection, .invalidArgument, "log: \(problem)", line: line)
            } else {
                fail(
                    connection, .unavailable, "log needs the event journal, which this daemon does not keep yet",
                    line: line)
            }
            return
        case "reply":
            guard let mode = RequestArguments.replyMode(argument) else {
                fail(connection, .invalidArgument, "reply takes \"on\", \"errors\" or \"off\"", line: line)
                return
            }
            connection.replyMode = mode
            answer(connection, JSONLine.object([("ok", true), ("reply", .string("\(mode)"))]), line: line)
            return
        default:
            guard argument.isEmpty else {
                fail(connection, .invalidArgument, "\(name) takes no argument", line: line)
                return
            }
        }
        switch name {
        case "monitor":
            connection.monitoring = true
            submit(.request(.monitor, ticket(connection, line)), on: connection)
        case "status":
            submit(.request(.status, ticket(connection, line)), on: connection)
        case "hello":
            submit(.request(.hello, ticket(connection, line)), on: connection)
        case "ping":
            submit(.request(.ping, ticket(connection, line)), on: connection)
        case "help":
            let names = JSONValue.array(Self.commandNames.map { .string($0) })
            answer(connection, JSONLine.object([("ok", true), ("commands", names)]), line: line)
        default:  // quit
            answer(connection, JSONLine.object([("ok", true)]), line: line)
            connection.closeAfterFlush = true
        }
    }

    /// A reply known now, sent in line order through the loop's next pass.
    private func answer(_ connection: ClientConnection, _ reply: [UInt8], line: Int) {
        submit(.reply(reply, ticket(connection, line)), on: connection)
    }

    /// An error reply; for event-like lines it honours `reply errors|off` and counts as rejected in `status`.
    func fail(_ connection: ClientConnection, _ code: ErrorCode, _ message: String, line: Int, eventLike: Bool = false)
    {
        if eventLike {
            submit(.rejected(code, message, ticket(connection, line)), on: connection)
        } else {
            answer(connection, JSONLine.error(code, message, line: line), line: line)
        }
    }
}
