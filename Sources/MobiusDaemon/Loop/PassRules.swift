import MobiusCore
import MobiusJSON

/// What a pass reads besides its inputs, the committed state and who streams what.
struct PassStart {
    /// Why the loop has not started (the journal's replay waits), or `nil` once it has.
    var recovery: String?
    /// A `log {"models":true}` stream takes the model after each event applied (`PassWork.recordModels`).
    var recordModels = false
    /// What the pass's `status` and `log` requests read from outside the loop; `nil` for a pass with neither.
    var outside: OutsideReads?
}

/// What `status` and `log` requests read from outside the loop, taken just before a pass that has them.
struct OutsideReads {
    /// The lowest seq `log` can send, or `nil` when there is no log (`log` is then `Unavailable`).
    var firstLoggedSeq: UInt64?
    /// Where `log {"models":true}` streams may start.
    var modelLogBase = ModelLogBase.head
    /// What `status` reports from outside the loop; taken only for a pass that has a `status` request.
    var surroundings: StatusSurroundings?
}

/// Where `log {"models":true}` streams may start, as the loop sees it when a pass has a `log` request.
enum ModelLogBase {
    /// Past models cannot be had, for this reason (an update plugin).
    case unavailable(String)
    /// Only at the head: nothing older is kept to replay from (`--ephemeral`).
    case head
    /// After this seq (the oldest snapshot, or 0 while the journal holds seq 1).
    case after(UInt64)
}

/// What `status` reports from outside the pass, taken just before it is computed.
struct StatusSurroundings {
    var uptimeSeconds: Double
    var rejectedFromOtherSources: UInt64
    var unhandledEffects: UInt64
    var libraryErrors: UInt64
    var capacity: Int
    /// Inputs waiting outside the pass (the queue, edge inputs held back, the inboxes), by source kind.
    var waiting: [EventSourceKind: Int]
    /// Events inboxes refused because they were full, by source kind.
    var dropped: [EventSourceKind: UInt64]
    /// The `status` members of the parts around the loop.
    var members: [(String, JSONValue)]
}

/// How a pass is computed: a pure function from (the committed state, what the pass reads, its inputs) to
/// `PassWork`, the values it will hand out once committed. The app's update is applied through MobiusCore's
/// `Next.apply(to:)`, as `Mobius.loop` does. A class so that the loop's calls do not copy its closures.
final class PassRules<Model, Event, Effect> {
    let update: (Model, Event) throws -> Next<Model, Effect>
    let encodeModel: (Model) throws -> JSONValue
    let encodeEvent: (Event) -> JSONValue
    let modelDepth: ModelDepthCheck
    let appName: String
    let epoch: String
    let version: String
    /// Whether nothing is kept on disk (`--ephemeral`), for `hello`.
    let ephemeral: Bool

    init(app: DaemonApp<Model, Event, Effect>, epoch: String, version: String, ephemeral: Bool) {
        self.update = app.update
        self.encodeModel = app.codec.encodeModel
        self.encodeEvent = app.codec.encodeEvent
        self.modelDepth = app.modelDepth
        self.appName = app.name
        self.epoch = epoch
        self.version = version
        self.ephemeral = ephemeral
    }

    /// Computes a pass over `inputs` from `state`, `audience` and `start`, in order, touching nothing outside the
    /// returned value.
    ///
    /// - Parameters:
    ///   - audience: who streams what before the pass.
    ///   - outputs: an empty array for the pass's outputs (an earlier pass's, for its capacity).
    ///   - records: an empty buffer for the pass's journal records, or `nil` when nothing is journaled.
    func compute(
        _ inputs: [PassInput<Event>], state: consuming LoopState<Model>, audience: borrowing Audience,
        from start: PassStart, outputs: consuming [PassOutput], records: consuming [UInt8]?,
        mode: PassWork<Model, Effect>.Mode, prepared: PreparedOutcomes<Model, Effect>? = nil
    ) -> PassWork<Model, Effect> {
        // `consume`: the buffers move into the pass, so that filling them does not copy them first.
        var work = PassWork<Model, Effect>(state: consume state, audience: audience)
        work.prepared = prepared
        work.recordModels = start.recordModels
        work.outputs = consume outputs
        if let records = consume records {
            work.journal = PassCommit(expectedEvents: inputs.count, buffer: records)
        }
        if start.outside?.surroundings != nil {
            var counts: [EventSourceKind: Int] = [:]
            for input in inputs { counts[input.sourceKind, default: 0] += 1 }
            work.notYetReached = counts
        }
        inputs.withUnsafeBufferPointer { buffer in
            for index in buffer.indices {
                step(buffer, at: index, audience: audience, from: start, mode: mode, work: &work)
            }
        }
        return work
    }

    /// Which requests of a pass over `inputs` read more than the committed state: `status` (its surroundings) and
    /// `log` (where the log starts).
    static func reads(of inputs: [PassInput<Event>]) -> (status: Bool, log: Bool) {
        var reads = (status: false, log: false)
        for input in inputs {
            guard case .request(let request, _) = input else { continue }
            if case .status = request { reads.status = true }
            if case .log = request { reads.log = true }
        }
        return reads
    }

    /// One input of `compute`, read in place from the pass's buffer (a `switch` over `inputs[index]` copied every
    /// event's payload first).
    private func step(
        _ inputs: UnsafeBufferPointer<PassInput<Event>>, at index: Int, audience: borrowing Audience,
        from start: PassStart, mode: PassWork<Model, Effect>.Mode, work: inout PassWork<Model, Effect>
    ) {
        if work.notYetReached != nil { work.notYetReached?[inputs[index].sourceKind, default: 0] -= 1 }
        switch inputs[index] {
        case .event(let queued):
            if case .rejectingEvents(let code, let message) = mode {
                reject(code, message, ticket: queued.ticket, source: queued.source, work: &work)
            } else if case .recovering(let cause) = mode {
                reject(
                    .unavailable, Self.recoveryMessage(cause), ticket: queued.ticket, source: queued.source,
                    work: &work)
            } else {
                apply(
                    queued.event, json: queued.json, text: queued.text, source: queued.source, ticket: queued.ticket,
                    work: &work)
            }
        case .request(let request, let ticket):
            if case .modelAt(let seq, let path) = request {
                // Always handed out, never replied to here: its answer may come from another thread, and the
                // connection's later lines wait for it (a model-sized reply is owed, `ClientConnection.mayRequest`).
                let answer = modelAt(seq, path: path, ticket: ticket, mode: mode, work: &work)
                work.outputs.append(.control(ticket, .modelAt(answer)))
                return
            }
            if case .recovering(let cause) = mode, request.needsRecoveredState {
                let line = JSONLine.error(.unavailable, Self.recoveryMessage(cause), line: ticket.line)
                work.outputs.append(.reply(ticket.connection, .line(line)))
                return
            }
            if case .control(let command) = request {
                work.outputs.append(.control(ticket, command))
                return
            }
            let reply: LoopReply
            if case .status = request {
                reply = .line(statusLine(work, from: start))
            } else {
                reply = answer(request, ticket: ticket, audience: audience, from: start, work: &work)
            }
            work.outputs.append(.reply(ticket.connection, reply))
        case .rejected(let code, let message, let ticket):
            reject(code, message, ticket: ticket, source: .client, work: &work)
        case .reply(let line, let ticket):
            work.outputs.append(.reply(ticket.connection, .line(line)))
        case .disconnected(let connection):
            if audience.subscriptions.contains(connection)
                || work.streamChanges.contains(where: { $0.subscribes(connection) })
            {
                work.subscriberCount -= 1
            }
            work.streamChanges.append(.disconnect(connection))
            work.monitors.removeAll { $0 == connection }
        }
    }

    private func apply(
        _ event: Event, json: JSONValue?, text: ArraySlice<UInt8>?, source: EventSourceKind, ticket: ReplyTicket?,
        work: inout PassWork<Model, Effect>
    ) {
        let next: Next<Model, Effect>
        do {
            if let prepared = work.prepared {
                next = try prepared.next()
            } else {
                next = try update(work.state.model, event)
            }
        } catch {
            let code = (error as? EventRejection)?.code ?? .invalidEvent
            reject(code, EventRejection.message(for: error), ticket: ticket, source: source, work: &work)
            return
        }
        if let model = next.model, case .eachEvent = modelDepth {
            switch encodedWithinDepth(model) {
            case .success(let encoded): work.state.modelJSON = encoded
            case .failure(let problem):
                reject(
                    .invalidEvent, "the event would make the model too deep: \(problem.description)",
                    ticket: ticket, source: source, work: &work)
                return
            }
        } else if next.model != nil {
            work.state.modelJSON = nil
        }
        if next.apply(to: &work.state.model) { work.modelChanged = true }
        work.state.seq += 1
        work.state.accepted += 1
        if source != .client { work.acceptedElsewhere[source] += 1 }
        if !next.effects.isEmpty { work.effects.append(contentsOf: next.effects) }
        if work.recordModels { work.journal?.appendModel(modelJSON(&work.state) ?? .null) }
        if let ticket {
            work.outputs.append(.reply(ticket.connection, ticket.mode == .on ? .ack(work.state.seq) : .none))
        }
        let seq = work.state.seq
        var eventJSON = json
        if work.journal != nil {
            if let text {
                work.journal?.append(seq: seq, text: text)
            } else {
                let encoded = eventJSON ?? encodeEvent(event)
                eventJSON = encoded
                work.journal?.append(seq: seq, encoding: encoded)
            }
        }
        if !work.monitors.isEmpty {
            // The event as its sender wrote it: the JSON when kept, else the text parsed again.
            let traced: JSONValue
            if let eventJSON {
                traced = eventJSON
            } else if let text, let parsed = try? JSONWire.parse(text) {
                traced = parsed
            } else {
                traced = encodeEvent(event)
            }
            let line = LoopLines.eventTrace(seq: seq, event: traced)
            for monitor in work.monitors { work.outputs.append(.trace(monitor, line)) }
        }
    }

    /// The `Unavailable` message of requests while recovery is stalled.
    static func recoveryMessage(_ cause: String) -> String {
        "recovery has not finished: \(cause); the model is not served until the journal is replayed"
    }

    private func reject(
        _ code: ErrorCode, _ message: String, ticket: ReplyTicket?, source: EventSourceKind,
        work: inout PassWork<Model, Effect>
    ) {
        work.state.rejected += 1
        if work.rejectedBy == nil { work.rejectedBy = [:] }
        work.rejectedBy![RejectionKey(code: code, source: source), default: 0] += 1
        guard let ticket else {
            work.unansweredRejections.append((source, message))
            return
        }
        let reply: LoopReply = ticket.mode == .off ? .none : .line(JSONLine.error(code, message, line: ticket.line))
        work.outputs.append(.reply(ticket.connection, reply))
    }

    // MARK: - Requests

    private func answer(
        _ request: LoopRequest, ticket: ReplyTicket, audience: borrowing Audience, from start: PassStart,
        work: inout PassWork<Model, Effect>
    ) -> LoopReply {
        let seq = work.state.seq
        switch request {
        case .model(let path), .subscribe(let path):
            guard let model = modelJSON(&work.state) else {
                return .line(JSONLine.error(.internal, "the app could not encode its model", line: ticket.line))
            }
            let value = path.map { $0.value(in: model) ?? .null } ?? model
            guard case .subscribe = request else { return .line(LoopLines.model(seq: seq, model: value)) }
            if !audience.subscriptions.contains(ticket.connection)
                && !work.streamChanges.contains(where: { $0.subscribes(ticket.connection) })
            {
                work.subscriberCount += 1
            }
            work.streamChanges.append(.subscribe(ticket.connection, path: path, value: value, seq: seq))
            return .line(LoopLines.subscribed(seq: seq, epoch: epoch, model: value))
        case .ping:
            return .line(LoopLines.ok(seq: seq))
        case .hello:
            return .line(LoopLines.hello(version: version, app: appName, epoch: epoch, seq: seq, ephemeral: ephemeral))
        case .log(let request):
            return logReply(request, ticket: ticket, from: start, work: &work)
        case .monitor:
            if !work.monitors.contains(ticket.connection) { work.monitors.append(ticket.connection) }
            work.streamChanges.append(.monitor(ticket.connection))
            return .line(LoopLines.ok(seq: seq))
        case .status, .control, .modelAt:
            // `step` answers `status` and makes control commands and `model {"at":N}` outputs of the pass.
            return .line(JSONLine.error(.internal, "a request was answered out of turn", line: ticket.line))
        }
    }

    /// The first reply of `log` (docs/protocol.md 1.2), and the stream to start once the pass is out. With
    /// `models`, the stream starts where a model can be had: after the oldest base a replay can start from, or at
    /// the head with `--ephemeral`; one that starts at the head gets the model the pass holds.
    private func logReply(
        _ request: LogRequest, ticket: ReplyTicket, from start: PassStart, work: inout PassWork<Model, Effect>
    ) -> LoopReply {
        guard let firstKept = start.outside?.firstLoggedSeq else {
            return .line(JSONLine.error(.unavailable, "this daemon keeps no event log", line: ticket.line))
        }
        let head = work.state.seq
        let wanted = request.since == .max ? request.since : request.since + 1
        var from = max(wanted, firstKept)
        if request.models {
            switch start.outside?.modelLogBase ?? .head {
            case .unavailable(let reason):
                return .line(JSONLine.error(.unavailable, "log with models: \(reason)", line: ticket.line))
            case .head:
                from = max(from, head &+ 1)
            case .after(let base):
                from = max(from, base &+ 1)
            }
            work.recordModels = true
        }
        var stream = LogStreamStart(
            from: from, stopAfter: request.follow ? nil : head, limit: request.limit, models: request.models)
        if request.models && from == head &+ 1 { stream.startModel = modelJSON(&work.state) }
        work.streamChanges.append(.log(ticket.connection, stream))
        return .line(LoopLines.logStarted(seq: head, epoch: epoch, from: from, compacted: wanted < from))
    }

    /// How the pass answers `model {"at":N}`: at once when N is the head (the model it holds) or in the future, or
    /// while recovery stalls; otherwise by a replay of the journal off the reactor.
    private func modelAt(
        _ seq: UInt64, path: JSONPointer?, ticket: ReplyTicket, mode: PassWork<Model, Effect>.Mode,
        work: inout PassWork<Model, Effect>
    ) -> ModelAtAnswer {
        if case .recovering(let cause) = mode {
            return .line(JSONLine.error(.unavailable, Self.recoveryMessage(cause), line: ticket.line))
        }
        let head = work.state.seq
        guard seq >= head else { return .replay(HistoryQuery(at: seq, path: path)) }
        guard seq == head else { return .line(HistoryProblem.future(head: head).reply(at: seq, line: ticket.line)) }
        guard let model = modelJSON(&work.state) else {
            return .line(JSONLine.error(.internal, "the app could not encode its model", line: ticket.line))
        }
        return .line(LoopLines.model(seq: seq, model: path.map { $0.value(in: model) ?? .null } ?? model))
    }

    /// The JSON form of a state's model, cached in the state.
    func modelJSON(_ state: inout LoopState<Model>) -> JSONValue? {
        if let cached = state.modelJSON { return cached }
        guard let encoded = try? encodeModel(state.model) else { return nil }
        state.modelJSON = encoded
        return encoded
    }

    private func statusLine(_ work: PassWork<Model, Effect>, from start: PassStart) -> [UInt8] {
        guard let around = start.outside?.surroundings else {
            preconditionFailure("a pass with a status request was computed without its surroundings")
        }
        let depths = around.waiting.merging(work.notYetReached ?? [:], uniquingKeysWith: +)
        var queues: [(String, JSONValue)] = [("capacity", .number(JSONNumber(around.capacity)))]
        for kind in EventSourceKind.allCases {
            queues.append((kind.rawValue, .number(JSONNumber(depths[kind] ?? 0))))
        }
        queues.append(
            ("dropped", .object(JSONObject(around.dropped.map { ($0.key.rawValue, .number(JSONNumber($0.value))) }))))
        var members: [(String, JSONValue)] = [
            ("app", .string(appName)),
            ("seq", .number(JSONNumber(work.state.seq))),
            ("epoch", .string(epoch)),
            ("version", .string(version)),
            ("uptime", .number(JSONNumber((around.uptimeSeconds * 1000).rounded() / 1000) ?? JSONNumber(0))),
            ("subscribers", .number(JSONNumber(work.subscriberCount))),
            ("monitors", .number(JSONNumber(work.monitors.count))),
            (
                "events",
                .object([
                    "accepted": .number(JSONNumber(work.state.accepted)),
                    "rejected": .number(JSONNumber(work.state.rejected)),
                    "rejectedFromOtherSources": .number(JSONNumber(around.rejectedFromOtherSources)),
                ])
            ),
            (
                "effects",
                .object([
                    "unhandled": .number(JSONNumber(around.unhandledEffects)),
                    "libraryErrors": .number(JSONNumber(around.libraryErrors)),
                ])
            ),
            ("queues", .object(JSONObject(queues))),
        ]
        if let recovery = start.recovery { members.append(("recovery", .string(recovery))) }
        members.append(contentsOf: around.members)
        return LoopLines.status(members)
    }

    /// Why a model may not be kept.
    struct DepthProblem: Error, CustomStringConvertible {
        let description: String
    }

    /// The model's JSON form, or why it is too deep for JSON (its encoding failed, or it nests past the parser's
    /// limit).
    func encodedWithinDepth(_ model: Model) -> Result<JSONValue, DepthProblem> {
        let encoded: JSONValue
        do {
            encoded = try encodeModel(model)
        } catch {
            return .failure(DepthProblem(description: "\(error)"))
        }
        if encoded.nests(deeperThan: JSONParser.defaultMaxDepth) {
            return .failure(
                DepthProblem(description: "its JSON form would nest deeper than \(JSONParser.defaultMaxDepth) levels"))
        }
        return .success(encoded)
    }
}
