import MobiusJSON

extension DBusExposureWorker {
    /// `org.mobiusd.App1.Send(event)`: the event takes the socket's way into the loop (parsed here as the parse
    /// thread would, then decoded by the app's codec, applied, journaled) and is answered with its seq once its
    /// pass has committed, or with the socket's error code as `org.mobiusd.Error.<Code>`.
    func accept(_ call: DBusMessage) {
        guard !shuttingDown else {
            failCall(call, Self.error(.shuttingDown, "the daemon is shutting down"))
            return
        }
        guard let arguments = call.stringArguments(maxBytes: maxEventBytes), arguments.count == 1 else { return }
        let number = nextCall
        nextCall &+= 1
        let ticket = ReplyTicket(connection: ForeignConnectionID.make(number), line: 1, mode: .on)
        let input: ClientInput
        let bytes: Int
        switch arguments[0] {
        case .tooLong(let length):
            // The call is kept until it is answered, text and all: it counts against the bound like any other.
            bytes = length
            input = .rejected(
                .lineTooLong, "the event is \(length) bytes, over socket.maxLineBytes (\(maxEventBytes))", ticket)
        case .text(let text):
            bytes = text.count
            let trimmed = text[...].trimmingJSONWhitespace()
            if trimmed.isEmpty {
                input = .rejected(.invalidJSON, "invalid JSON: the event is empty", ticket)
            } else {
                input = RequestInterpreter.parsedEvent(trimmed, ticket: ticket, eventsAsText: eventsAsText)
            }
        }
        // Never full: calls in flight stay under its capacity. (Only this thread closes it, when it ends.)
        guard inbox.post(input) else {
            failCall(call, Self.error(.overloaded, "\(calls.count) calls already wait for the loop"))
            return
        }
        calls[number] = WaitingCall(call: call, bytes: bytes)
        bytesInFlight += bytes
        status.update {
            $0.sends += 1
            $0.inFlight = calls.count
        }
    }

    private func failCall(_ call: DBusMessage, _ failure: DBusFailure) {
        guard !call.expectsNoReply, let reply = call.errorReply(failure) else { return }
        _ = connection?.send(reply)
    }

    /// The loop's reply to `Send` call `number`: its seq, or its error line turned into a D-Bus error.
    func answer(call number: UInt32, with reply: LoopReply) {
        guard let waiting = calls.removeValue(forKey: number) else { return }
        bytesInFlight -= waiting.bytes
        status.update { $0.inFlight = calls.count }
        guard let call = waiting.call, !call.expectsNoReply, let connection else { return }
        let message: DBusMessage?
        switch reply {
        case .ack(let seq):
            message = call.methodReturn()
            guard message?.append([.uint64(seq)]) == true else { return }
        case .line(let line):
            message = call.errorReply(Self.failure(fromErrorLine: line))
        case .none:
            message = call.errorReply(Self.error(.internal, "the loop gave no reply"))
        }
        if let message { _ = connection.send(message) }
    }

    /// `{"ok":false,"error":{"code":C,"message":M},…}` as `org.mobiusd.Error.C` with `M`.
    static func failure(fromErrorLine line: [UInt8]) -> DBusFailure {
        let parsed = try? JSONWire.parse(line[...])
        guard case .string(let code)? = parsed?["error"]?["code"], DBusNames.isMember(code) else {
            return error(.internal, "the loop answered \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
        let message = parsed?["error"]?["message"]?.stringValue ?? ""
        return DBusFailure(name: "org.mobiusd.Error." + code, message: message)
    }
}
