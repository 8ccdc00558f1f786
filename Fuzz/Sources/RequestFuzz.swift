import MobiusJSON
import MobiusSystem

@testable import MobiusDaemon

/// The control socket's request lines (docs/protocol.md 1.2) as a connection sends them: the classifier, the
/// interpreter and every command's argument.
///
/// Oracles: nothing traps; the reactor's way (a line at a time) and the parse thread's (`LineBatch`) give the same
/// inputs; a line is an event exactly when the protocol's first-byte rule says so and is accepted exactly when the
/// JSON parser accepts it; `InvalidEncoding` exactly for a NUL or invalid UTF-8; every reply is one JSON object line
/// no bigger than the request allows; each command's argument is taken or refused as section 1.2 says, checked
/// against a reading of the section written here; an event's journal text is kept exactly when no whitespace lies
/// outside its strings.
enum RequestFuzz {
    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let flags = input.byte()
        let state = RequestState(
            connection: 7, peerUID: 1000, eventsAsText: flags & 1 != 0, canRead: flags & 2 == 0,
            canWrite: flags & 4 == 0)
        var stream = input.rest()
        // A connection's last line counts without its newline at EOF; both ways below take whole lines.
        if stream.last != UInt8(ascii: "\n") { stream.append(UInt8(ascii: "\n")) }
        let oneAtATime = interpretOneAtATime(stream, state)
        let batched = interpretBatched(stream, state)
        check(
            oneAtATime.compactMap(\.input).map(fingerprint) == batched,
            "a line at a time and LineBatch differ:\n\(oneAtATime.compactMap(\.input))\n\(batched)")
        for line in oneAtATime { checkLine(line) }
    }

    /// One request line, what its state was before it, and the input it gave.
    struct Interpreted {
        let line: ArraySlice<UInt8>
        let number: Int
        let state: RequestState
        let input: ClientInput?
    }

    /// The reactor's way: each line as it is framed. A control command is taken as answered at once (the reactor
    /// holds the lines after it until then), and nothing after `quit` is read.
    static func interpretOneAtATime(_ stream: [UInt8], _ start: RequestState) -> [Interpreted] {
        var framer = LineFramer(bytes: stream)
        var state = start
        var number = 0
        var result: [Interpreted] = []
        while !state.quit, case .line(let line)? = framer.next() {
            number += 1
            let before = state
            let input = RequestInterpreter.interpret(line, number: number, state: &state)
            state.awaitingControl = false
            result.append(Interpreted(line: line, number: number, state: before, input: input))
        }
        return result
    }

    /// The parse thread's way: batches, each resuming where the one before stopped, as the connection sends them.
    static func interpretBatched(_ stream: [UInt8], _ start: RequestState) -> [String] {
        var state = start
        var consumed = 0
        var firstLine = 1
        var fingerprints: [String] = []
        while consumed < stream.count && !state.quit {
            let job = LineBatch.Job(
                connection: 7, bytes: Array(stream[consumed...]), firstLine: firstLine, state: state,
                replyBudget: 1 << 40, maxInputs: 1 << 20, maxLineBytes: .max)
            let result = LineBatch.interpret(job)
            check(result.linesConsumed > 0, "a batch of whole lines took none")
            fingerprints += result.inputs.map(fingerprint)
            consumed += result.bytesConsumed
            firstLine += result.linesConsumed
            state = result.state
            state.awaitingControl = false
        }
        return fingerprints
    }

    /// Everything an input carries, as text to compare (written out: reflection cost most of a run).
    static func fingerprint(_ input: ClientInput) -> String {
        func ticket(_ ticket: ReplyTicket) -> String {
            let mode =
                switch ticket.mode {
                case .on: "on"
                case .errors: "errors"
                case .off: "off"
                }
            return "\(ticket.connection) \(ticket.line) \(mode)"
        }
        switch input {
        case .event(let json, let text, let owed):
            let textShown = text.map { String(decoding: $0, as: UTF8.self) } ?? "-"
            return "event \(ticket(owed)) \(json.map(\.description) ?? "-") \(textShown)"
        case .request(let request, let owed):
            let shown: String
            switch request {
            case .model(let path): shown = "model \(path?.description ?? "-")"
            case .modelAt(let seq, let path): shown = "model at \(seq) \(path?.description ?? "-")"
            case .subscribe(let path): shown = "subscribe \(path?.description ?? "-")"
            case .log(let log):
                shown = "log \(log.since) \(log.limit.map(String.init) ?? "-") \(log.follow) \(log.models)"
            case .control(.reload): shown = "reload"
            case .control(.restartPlugin(let name)): shown = "restart \(name)"
            case .control(.modelAt): shown = "model at, answered"
            case .control(.metrics(let format)): shown = "metrics \(format.rawValue)"
            case .ping: shown = "ping"
            case .hello: shown = "hello"
            case .status: shown = "status"
            case .monitor: shown = "monitor"
            }
            return "request \(ticket(owed)) \(shown)"
        case .rejected(let code, let message, let owed):
            return "rejected \(ticket(owed)) \(code.rawValue) \(message)"
        case .reply(let line, let owed):
            return "reply \(ticket(owed)) \(String(decoding: line, as: UTF8.self))"
        case .disconnected(let connection):
            return "disconnected \(connection)"
        }
    }

    // MARK: - One line

    static let whitespace: Set<UInt8> = [0x20, 0x09, 0x0D, 0x0A]

    static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let start = line.firstIndex(where: { !whitespace.contains($0) }),
            let end = line.lastIndex(where: { !whitespace.contains($0) })
        else { return line[line.endIndex...] }
        return line[start...end]
    }

    static func checkLine(_ interpreted: Interpreted) {
        let line = interpreted.line
        let text = trimmed(line)
        let validEncoding = !line.contains(0) && String(validating: Array(line), as: UTF8.self) != nil
        check(
            (LineEncoding.problem(in: line) == nil) == validEncoding,
            "LineEncoding and Swift's UTF-8 validation disagree on \(Array(line))")
        guard let input = interpreted.input else {
            check(validEncoding && text.isEmpty, "a line that is not blank gave no input: \(Array(line))")
            return
        }
        check(!text.isEmpty || !validEncoding, "a blank line gave an input: \(input)")
        if case .reply(let reply, _) = input { checkReply(reply, interpreted) }
        guard validEncoding, let first = text.first else {
            if validEncoding { return }
            check(isError(input, .invalidEncoding), "bad encoding but \(input)")
            return
        }
        let word = text.prefix { $0 != 0x20 && $0 != 0x09 }
        let literal = ["true", "false", "null"].contains { Array($0.utf8)[...] == word }
        if Array("{[\"-0123456789".utf8).contains(first) || literal {
            checkEvent(text, input, interpreted.state)
        } else if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) {
            let argument = trimmed(text[word.endIndex...])
            checkCommand(String(decoding: word, as: UTF8.self), argument, input, interpreted.state)
        } else {
            check(isError(input, .unknownCommand), "\(Array(text)) is not a command but \(input)")
        }
    }

    static func isError(_ input: ClientInput, _ code: ErrorCode) -> Bool {
        switch input {
        case .rejected(let given, _, _): return given == code
        case .reply(let reply, _):
            return (try? JSONValue(parsing: reply))?["error"]?["code"]?.stringValue == code.rawValue
        default: return false
        }
    }

    /// A reply is one line of one JSON object; an error names its line and a known code, and quotes the request
    /// only so much that it is never much bigger than the line.
    static func checkReply(_ reply: [UInt8], _ interpreted: Interpreted) {
        check(reply.last == UInt8(ascii: "\n") && reply.dropLast().allSatisfy { $0 != 0x0A }, "reply is not one line")
        guard case .object(let object)? = try? JSONValue(parsing: reply) else {
            check(false, "reply is not a JSON object: \(String(decoding: reply, as: UTF8.self))")
            return
        }
        check(object["ok"]?.boolValue != nil, "reply without ok")
        check(
            reply.count <= 2 * interpreted.line.count + 1024, "a \(interpreted.line.count)-byte line got a bigger reply"
        )
        guard object["ok"] == false else { return }
        check(object["line"] == .number(JSONNumber(interpreted.number)), "error reply without its line")
        check(
            (object["error"]?["code"]?.stringValue).flatMap(ErrorCode.init(rawValue:)) != nil,
            "error reply without a known code")
    }

    /// An event: refused without write permission, `InvalidJSON` exactly when the parser refuses it, else taken with
    /// its value and, when compact, its text.
    static func checkEvent(_ text: ArraySlice<UInt8>, _ input: ClientInput, _ state: RequestState) {
        let parsed = try? JSONValue(parsing: text)
        guard state.canWrite else {
            check(isError(input, .permissionDenied), "an event without write permission gave \(input)")
            return
        }
        guard let parsed else {
            check(isError(input, .invalidJSON), "unparsable event gave \(input)")
            return
        }
        guard case .event(let json, let compact, _) = input else {
            check(false, "a valid event gave \(input)")
            return
        }
        check(
            json == nil ? state.eventsAsText && compact != nil : json == parsed,
            "event value \(String(describing: json))")
        check(compact.map { Array($0) == Array(text) } ?? true, "the event's journal text is not the line's")
        if text.count <= 512 {
            check((compact != nil) == isCompact(text, parsed), "compact text kept wrongly for \(Array(text))")
        }
    }

    /// Compact means no whitespace outside strings: no whitespace byte can be removed without changing the value
    /// (inside a string it changes the string; between tokens it does not).
    static func isCompact(_ text: ArraySlice<UInt8>, _ value: JSONValue) -> Bool {
        for index in text.indices where whitespace.contains(text[index]) {
            var shorter = Array(text)
            shorter.remove(at: index - text.startIndex)
            if let other = try? JSONValue(parsing: shorter), other == value { return false }
        }
        return true
    }

    /// A command: its permission, then its argument as section 1.2 describes it.
    static func checkCommand(_ name: String, _ argument: ArraySlice<UInt8>, _ input: ClientInput, _ state: RequestState)
    {
        let reads = [
            "model", "subscribe", "log", "monitor", "status", "hello", "reply", "ping", "help", "quit", "metrics",
        ]
        let writes = ["reload", "plugin"]
        guard name == "send" || reads.contains(name) || writes.contains(name) else {
            check(isError(input, .unknownCommand), "unknown command \(name) gave \(input)")
            return
        }
        if name == "send" {
            if argument.isEmpty {
                check(isError(input, .invalidArgument), "send without an argument gave \(input)")
            } else {
                checkEvent(argument, input, state)
            }
            return
        }
        guard writes.contains(name) ? state.canWrite : state.canRead else {
            check(isError(input, .permissionDenied), "\(name) without permission gave \(input)")
            return
        }
        let argumentValue = argument.isEmpty ? nil : try? JSONValue(parsing: argument)
        let accepted: Bool
        switch name {
        case "model":
            let expected = expectedModel(argument, argumentValue)
            if case .request(let request, _) = input {
                switch (request, expected) {
                case (.model(let path), .some((let pointer, nil))): check(path == pointer, "model path")
                case (.modelAt(let seq, let path), .some((let pointer, let at?))):
                    check(path == pointer && seq == at, "model at \(seq) \(String(describing: path))")
                default: check(false, "model gave \(request)")
                }
            }
            accepted = expected != nil
        case "subscribe":
            let expected = expectedPath(argument, argumentValue)
            if case .request(let request, _) = input {
                switch (request, expected) {
                case (.subscribe(let path), .some(let pointer)): check(path == pointer, "subscribe path")
                default: check(false, "subscribe gave \(request)")
                }
            }
            accepted = expected != nil
        case "log":
            let expected = expectedLog(argument, argumentValue)
            if case .request(.log(let request), _) = input {
                check(request == expected, "log \(request) vs \(String(describing: expected))")
            }
            accepted = expected != nil
        case "reply":
            let word = argumentValue?.stringValue ?? String(decoding: argument, as: UTF8.self)
            accepted = ["on", "errors", "off"].contains(word)
        case "metrics":
            let expected = expectedMetricsFormat(argument, argumentValue)
            if case .request(let request, _) = input {
                switch (request, expected) {
                case (.control(.metrics(let format)), .some(let name)): check(format.rawValue == name, "metrics format")
                default: check(false, "metrics gave \(request)")
                }
            }
            accepted = expected != nil
        case "plugin":
            guard case .object(let object)? = argumentValue, object.count == 1, object["restart"]?.stringValue != nil
            else {
                accepted = false
                break
            }
            accepted = true
        default:
            accepted = argument.isEmpty
        }
        check(
            accepted != isError(input, .invalidArgument),
            "\(name) \(Array(argument)): accepted \(accepted), got \(input)")
    }

    /// `{"format":"openmetrics"|"prometheus"}`, the format optional, or nothing: the format's name, or `nil` when
    /// refused.
    static func expectedMetricsFormat(_ argument: ArraySlice<UInt8>, _ value: JSONValue?) -> String? {
        guard !argument.isEmpty else { return "openmetrics" }
        guard case .object(let object)? = value, object.keys.allSatisfy({ $0 == "format" }) else { return nil }
        guard let format = object["format"] else { return "openmetrics" }
        guard case .string(let name) = format, ["openmetrics", "prometheus"].contains(name) else { return nil }
        return name
    }

    /// `{"path":"/json/pointer"}`, the path optional, or nothing: the pointer, or `nil` when refused.
    static func expectedPath(_ argument: ArraySlice<UInt8>, _ value: JSONValue?) -> JSONPointer?? {
        guard !argument.isEmpty else { return .some(nil) }
        guard case .object(let object)? = value, object.keys.allSatisfy({ $0 == "path" }) else { return nil }
        guard let path = object["path"] else { return .some(nil) }
        guard case .string(let text) = path, let pointer = try? JSONPointer(text) else { return nil }
        return .some(pointer)
    }

    /// `model`'s `{"path":"/json/pointer","at":N}`, both optional, N an integer ≥ 0: the pointer and N, or `nil` when
    /// refused.
    static func expectedModel(_ argument: ArraySlice<UInt8>, _ value: JSONValue?) -> (JSONPointer?, UInt64?)? {
        guard !argument.isEmpty else { return (nil, nil) }
        guard case .object(var object)? = value else { return nil }
        var at: UInt64?
        if let member = object.removeValue(forKey: "at") {
            guard case .number(let number) = member, let seq = number.int64Value, seq >= 0 else { return nil }
            at = UInt64(seq)
        }
        let rest = object.isEmpty ? [] : JSONValue.object(object).encoded()
        guard let path = expectedPath(ArraySlice(rest), .object(object)) else { return nil }
        return (path, at)
    }

    /// `{"since":N,"follow":bool,"limit":K,"models":bool}`, each optional, N and K integers ≥ 0.
    static func expectedLog(_ argument: ArraySlice<UInt8>, _ value: JSONValue?) -> LogRequest? {
        var request = LogRequest()
        guard !argument.isEmpty else { return request }
        guard case .object(let object)? = value else { return nil }
        for (key, member) in object.members {
            switch key {
            case "since", "limit":
                guard case .number(let number) = member, let count = number.int64Value, count >= 0
                else { return nil }
                if key == "since" { request.since = UInt64(count) } else { request.limit = UInt64(count) }
            case "follow", "models":
                guard case .bool(let flag) = member else { return nil }
                if key == "follow" { request.follow = flag } else { request.models = flag }
            default:
                return nil
            }
        }
        return request
    }
}
