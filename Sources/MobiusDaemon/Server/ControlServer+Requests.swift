import MobiusJSON

extension ControlServer {
    /// The commands `help` lists, in that order.
    static var commandNames: [String] {
        ["send", "model", "subscribe", "log", "monitor", "status", "hello", "reply", "ping", "help", "quit"]
    }

    /// Handles one request line. Returns `false` if the loop's queue was full and the line must be retried.
    func handleLine(_ bytes: ArraySlice<UInt8>, on connection: ClientConnection) -> Bool {
        let number = connection.linesConsumed + 1
        let request = RequestLine.classify(bytes)
        switch request {
        case .blank:
            return true
        case .event(let text):
            return submitEvent(text, on: connection, line: number)
        case .invalid(let code, let message, let eventLike):
            return fail(connection, code, message, line: number, eventLike: eventLike)
        case .command(let name, let argument):
            return handleCommand(name, argument: argument, on: connection, line: number)
        }
    }

    private func submitEvent(_ text: ArraySlice<UInt8>, on connection: ClientConnection, line: Int) -> Bool {
        guard connection.canWrite else {
            return fail(
                connection, .permissionDenied, "uid \(connection.peer.uid) may not send events (access.write)",
                line: line, eventLike: true)
        }
        let ticket = ReplyTicket(connection: connection.id, line: line, mode: connection.replyMode)
        guard stage(.eventText(Array(text), ticket)) else { return false }
        connection.expectLoopReply()
        return true
    }

    private func handleCommand(
        _ name: String, argument: ArraySlice<UInt8>, on connection: ClientConnection, line: Int
    ) -> Bool {
        guard Self.commandNames.contains(name) else {
            fail(connection, .unknownCommand, "unknown command \"\(name)\"; send `help` for the list", line: line)
            return true
        }
        if name == "send" {
            guard !argument.isEmpty else {
                return fail(
                    connection, .invalidArgument, "send needs a JSON event: send {\"type\":\"…\"}", line: line,
                    eventLike: true)
            }
            return submitEvent(argument, on: connection, line: line)
        }
        guard connection.canRead else {
            fail(connection, .permissionDenied, "uid \(connection.peer.uid) may not read (access.read)", line: line)
            return true
        }
        switch name {
        case "model", "subscribe":
            let path: JSONPointer?
            switch Self.pathArgument(argument) {
            case .success(let parsed): path = parsed
            case .failure(let message):
                fail(connection, .invalidArgument, "\(name): \(message)", line: line)
                return true
            }
            let request: LoopRequest = name == "model" ? .model(path: path) : .subscribe(path: path)
            return submit(request, on: connection, line: line) { $0.subscribed = $0.subscribed || name == "subscribe" }
        case "log":
            if let message = Self.logArgumentProblem(argument) {
                fail(connection, .invalidArgument, "log: \(message)", line: line)
            } else {
                fail(
                    connection, .unavailable, "log needs the event journal, which this daemon does not keep yet",
                    line: line)
            }
            return true
        case "reply":
            guard let mode = Self.replyMode(argument) else {
                fail(connection, .invalidArgument, "reply takes \"on\", \"errors\" or \"off\"", line: line)
                return true
            }
            connection.replyMode = mode
            connection.reply(.line(JSONLine.object([("ok", true), ("reply", .string("\(mode)"))])))
            dirty.insert(connection.id)
            return true
        default:
            guard argument.isEmpty else {
                fail(connection, .invalidArgument, "\(name) takes no argument", line: line)
                return true
            }
        }
        switch name {
        case "monitor":
            return submit(.monitor, on: connection, line: line) { $0.monitoring = true }
        case "status":
            return submit(.status, on: connection, line: line)
        case "hello":
            return submit(.hello, on: connection, line: line)
        case "ping":
            return submit(.ping, on: connection, line: line)
        case "help":
            let names = JSONValue.array(Self.commandNames.map { .string($0) })
            connection.reply(.line(JSONLine.object([("ok", true), ("commands", names)])))
        default:  // quit
            connection.reply(.line(JSONLine.object([("ok", true)])))
            connection.closeAfterFlush = true
        }
        dirty.insert(connection.id)
        return true
    }

    private func submit(
        _ request: LoopRequest, on connection: ClientConnection, line: Int,
        accepted: (ClientConnection) -> Void = { _ in }
    ) -> Bool {
        let ticket = ReplyTicket(connection: connection.id, line: line, mode: connection.replyMode)
        guard stage(.request(request, ticket)) else { return false }
        connection.expectLoopReply()
        accepted(connection)
        return true
    }

    /// Replies with an error; for event-like lines honours `reply errors|off` and counts the rejection, in order
    /// with the connection's other requests (a `.rejected` mark goes through the loop's queue, so a `status`
    /// counts exactly the rejections before it). Returns `false` when the queue is full and the line must wait.
    @discardableResult
    func fail(
        _ connection: ClientConnection, _ code: ErrorCode, _ message: String, line: Int, eventLike: Bool = false
    ) -> Bool {
        if eventLike {
            guard stage(.rejected) else { return false }
            if connection.replyMode == .off { return true }
        }
        connection.reply(.line(JSONLine.error(code, message, line: line)))
        dirty.insert(connection.id)
        return true
    }

    // MARK: - Arguments

    /// `{"path":"/json/pointer"}` or nothing.
    static func pathArgument(_ argument: ArraySlice<UInt8>) -> Result<JSONPointer?, ArgumentProblem> {
        guard !argument.isEmpty else { return .success(nil) }
        guard let value = try? JSONWire.parse(argument), case .object(let object) = value else {
            return .failure(ArgumentProblem("the argument must be a JSON object like {\"path\":\"/a/b\"}"))
        }
        if let unknown = object.keys.first(where: { $0 != "path" }) {
            return .failure(ArgumentProblem("unknown key \"\(unknown)\" (only \"path\")"))
        }
        guard let pathValue = object["path"] else { return .success(nil) }
        guard case .string(let text) = pathValue else {
            return .failure(ArgumentProblem("\"path\" must be a string (a JSON Pointer)"))
        }
        do {
            return .success(try JSONPointer(text))
        } catch {
            return .failure(ArgumentProblem("\"path\" is not a JSON Pointer: \(error)"))
        }
    }

    /// A message if `log`'s argument is malformed: an object with `since` and `limit` (integers ≥ 0) and
    /// `follow` (boolean), all optional.
    static func logArgumentProblem(_ argument: ArraySlice<UInt8>) -> String? {
        guard !argument.isEmpty else { return nil }
        guard let value = try? JSONWire.parse(argument), case .object(let object) = value else {
            return "the argument must be a JSON object like {\"since\":0,\"follow\":true}"
        }
        for (key, member) in object.members {
            switch key {
            case "since", "limit":
                guard let number = member.int64Value, number >= 0 else { return "\"\(key)\" must be an integer ≥ 0" }
            case "follow":
                guard member.boolValue != nil else { return "\"follow\" must be true or false" }
            default:
                return "unknown key \"\(key)\""
            }
        }
        return nil
    }

    /// `"on"`, `"errors"`, `"off"`, quoted (JSON) or bare.
    static func replyMode(_ argument: ArraySlice<UInt8>) -> ReplyMode? {
        var text = String(decoding: argument, as: UTF8.self)
        if let value = try? JSONWire.parse(argument), case .string(let string) = value { text = string }
        switch text {
        case "on": return .on
        case "errors": return .errors
        case "off": return .off
        default: return nil
        }
    }
}

/// Why a command's argument was refused.
struct ArgumentProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
