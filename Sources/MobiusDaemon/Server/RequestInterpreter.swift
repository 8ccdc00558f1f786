import MobiusJSON

/// Turns one request line into the loop's input for it (docs/protocol.md 1.2): classifies it, checks permissions and
/// arguments, parses an event's JSON. Pure apart from `RequestState`, so the reactor runs it for a few lines and
/// the parse thread for a big batch, with the same result.
enum RequestInterpreter {
    /// The commands `help` lists, in that order.
    static let commandNames = [
        "send", "model", "subscribe", "log", "monitor", "status", "hello", "reply", "ping", "help", "quit", "reload",
        "plugin", "metrics",
    ]

    /// The input for line `number`, or `nil` for a blank line (ignored, but counted).
    static func interpret(_ bytes: ArraySlice<UInt8>, number: Int, state: inout RequestState) -> ClientInput? {
        switch RequestLine.classify(bytes) {
        case .blank:
            return nil
        case .event(let text):
            return event(text, number: number, state: state)
        case .invalid(let code, let message, let eventLike):
            return failure(code, message, number: number, state: state, eventLike: eventLike)
        case .command(let name, let argument):
            return command(name, argument: argument, number: number, state: &state)
        }
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
            case .model, .modelAt, .subscribe: return ClientConnection.modelSized
            case .status: return 16 * 1024
            case .ping, .hello, .monitor, .log: return 512
            case .control: return 16 * 1024
            }
        case .disconnected:
            return 0
        }
    }

    private static func ticket(_ number: Int, _ state: RequestState) -> ReplyTicket {
        ReplyTicket(connection: state.connection, line: number, mode: state.replyMode)
    }

    private static func event(_ text: ArraySlice<UInt8>, number: Int, state: RequestState) -> ClientInput {
        guard state.canWrite else {
            return failure(
                .permissionDenied, "uid \(state.peerUID) may not send events (access.write)", number: number,
                state: state, eventLike: true)
        }
        return parsedEvent(text, ticket: ticket(number, state), eventsAsText: state.eventsAsText)
    }

    /// The input for an event's text from a writer: the event, or `InvalidJSON` (a D-Bus `Send` takes this way too).
    /// - Parameter eventsAsText: the loop reads compact events as text alone (`RequestState.eventsAsText`).
    static func parsedEvent(_ text: ArraySlice<UInt8>, ticket: ReplyTicket, eventsAsText: Bool) -> ClientInput {
        do {
            let json = try JSONWire.parse(text)
            let compact = JSONWire.compactText(text)
            // `Optional.none`, not `nil`: JSONValue takes the nil literal, which would keep a JSON null.
            let kept: JSONValue? = eventsAsText && compact != nil ? Optional.none : json
            return .event(kept, text: compact, ticket)
        } catch {
            return .rejected(.invalidJSON, "invalid JSON: \(error)", ticket)
        }
    }

    private static func command(
        _ name: String, argument: ArraySlice<UInt8>, number: Int, state: inout RequestState
    ) -> ClientInput {
        guard commandNames.contains(name) else {
            return failure(
                .unknownCommand, "unknown command \"\(name)\"; send `help` for the list", number: number, state: state)
        }
        if name == "send" {
            guard !argument.isEmpty else {
                return failure(
                    .invalidArgument, "send needs a JSON event: send {\"type\":\"…\"}", number: number, state: state,
                    eventLike: true)
            }
            return event(argument, number: number, state: state)
        }
        if name == "reload" || name == "plugin" {
            return control(name, argument: argument, number: number, state: &state)
        }
        guard state.canRead else {
            return failure(
                .permissionDenied, "uid \(state.peerUID) may not read (access.read)", number: number, state: state)
        }
        switch name {
        case "model":
            switch RequestArguments.modelArgument(argument) {
            case .success((let path, nil)):
                return .request(.model(path: path), ticket(number, state))
            case .success((let path, let at?)):
                // Answered once its replay is done, on another thread: its reply is model-sized, so the
                // connection's later lines wait for it (`ClientConnection.mayRequest`).
                return .request(.modelAt(seq: at, path: path), ticket(number, state))
            case .failure(let problem):
                return failure(.invalidArgument, "model: \(problem)", number: number, state: state)
            }
        case "subscribe":
            switch RequestArguments.pathArgument(argument) {
            case .success(let path):
                state.subscribed = true
                return .request(.subscribe(path: path), ticket(number, state))
            case .failure(let problem):
                return failure(.invalidArgument, "subscribe: \(problem)", number: number, state: state)
            }
        case "log":
            switch RequestArguments.logArgument(argument) {
            case .success(let request):
                return .request(.log(request), ticket(number, state))
            case .failure(let problem):
                return failure(.invalidArgument, "log: \(problem)", number: number, state: state)
            }
        case "metrics":
            switch RequestArguments.metricsFormat(argument) {
            case .success(let format):
                // Answered once built off the reactor thread: later lines wait, so the replies stay in order.
                state.awaitingControl = true
                return .request(.control(.metrics(format)), ticket(number, state))
            case .failure(let problem):
                return failure(.invalidArgument, "metrics: \(problem)", number: number, state: state)
            }
        case "reply":
            guard let mode = RequestArguments.replyMode(argument) else {
                return failure(
                    .invalidArgument, "reply takes \"on\", \"errors\" or \"off\"", number: number, state: state)
            }
            state.replyMode = mode
            return .reply(JSONLine.object([("ok", true), ("reply", .string("\(mode)"))]), ticket(number, state))
        default:
            guard argument.isEmpty else {
                return failure(.invalidArgument, "\(name) takes no argument", number: number, state: state)
            }
        }
        switch name {
        case "monitor":
            state.monitoring = true
            return .request(.monitor, ticket(number, state))
        case "status":
            return .request(.status, ticket(number, state))
        case "hello":
            return .request(.hello, ticket(number, state))
        case "ping":
            return .request(.ping, ticket(number, state))
        case "help":
            let names = JSONValue.array(commandNames.map { .string($0) })
            return .reply(JSONLine.object([("ok", true), ("commands", names)]), ticket(number, state))
        default:  // quit
            state.quit = true
            return .reply(JSONLine.object([("ok", true)]), ticket(number, state))
        }
    }

    /// `reload` (no argument) or `plugin {"restart":"NAME"}`, for peers that may write.
    private static func control(
        _ name: String, argument: ArraySlice<UInt8>, number: Int, state: inout RequestState
    ) -> ClientInput {
        guard state.canWrite else {
            return failure(
                .permissionDenied, "uid \(state.peerUID) may not use \(name) (access.write)", number: number,
                state: state)
        }
        let command: ControlCommand
        if name == "reload" {
            guard argument.isEmpty else {
                return failure(.invalidArgument, "reload takes no argument", number: number, state: state)
            }
            command = .reload
        } else {
            guard case .object(let object)? = try? JSONValue(parsing: argument), object.count == 1,
                case .string(let plugin)? = object["restart"]
            else {
                return failure(
                    .invalidArgument, "plugin takes {\"restart\":\"NAME\"}", number: number, state: state)
            }
            command = .restartPlugin(plugin)
        }
        state.awaitingControl = true
        return .request(.control(command), ticket(number, state))
    }

    /// An error reply; an event-like line's error honours `reply errors|off` and counts as rejected in `status`.
    static func failure(
        _ code: ErrorCode, _ message: String, number: Int, state: RequestState, eventLike: Bool = false
    ) -> ClientInput {
        if eventLike { return .rejected(code, message, ticket(number, state)) }
        return .reply(JSONLine.error(code, message, line: number), ticket(number, state))
    }
}
