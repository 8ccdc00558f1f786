import MobiusCore
import MobiusJSON
import MobiusSystem

extension DaemonLoop {
    /// Computes a pass over `inputs` from the committed state, in order, without touching anything outside the
    /// returned value.
    func compute(
        _ inputs: [PassInput<Event>], mode: PassWork<Model, Effect>.Mode,
        prepared: PreparedOutcomes<Model, Effect>? = nil
    ) -> PassWork<Model, Effect> {
        var work = PassWork<Model, Effect>(state: state, audience: audienceBeforePass)
        work.prepared = prepared
        work.outputs = takeSpareOutputs()
        if commitHook != nil {
            work.journal = PassCommit(expectedEvents: inputs.count, buffer: takeSpareRecords())
        }
        inputs.withUnsafeBufferPointer { buffer in
            for index in buffer.indices { step(buffer, at: index, mode: mode, work: &work) }
        }
        return work
    }

    /// One input of `compute`, read in place from the pass's buffer (a `switch` over `inputs[index]` copied every
    /// event's payload first).
    @inline(__always)
    private func step(
        _ inputs: UnsafeBufferPointer<PassInput<Event>>, at index: Int, mode: PassWork<Model, Effect>.Mode,
        work: inout PassWork<Model, Effect>
    ) {
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
            if case .recovering(let cause) = mode, request.needsRecoveredState {
                let line = JSONLine.error(.unavailable, Self.recoveryMessage(cause), line: ticket.line)
                work.outputs.append(.reply(ticket.connection, .line(line)))
                return
            }
            if case .control(let command) = request {
                work.outputs.append(.control(ticket, command))
                return
            }
            if case .status = request { setPassRemainder(ArraySlice(inputs[(index + 1)...])) }
            work.outputs.append(.reply(ticket.connection, answer(request, ticket: ticket, work: &work)))
            setPassRemainder([])
        case .rejected(let code, let message, let ticket):
            reject(code, message, ticket: ticket, source: .client, work: &work)
        case .reply(let line, let ticket):
            work.outputs.append(.reply(ticket.connection, .line(line)))
        case .disconnected(let connection):
            if isSubscribed(connection) || work.streamChanges.contains(where: { $0.subscribes(connection) }) {
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
        if let model = next.model {
            var modelJSON: JSONValue?
            if case .eachEvent = modelDepth {
                switch encodedWithinDepth(model) {
                case .success(let encoded): modelJSON = encoded
                case .failure(let problem):
                    reject(
                        .invalidEvent, "the event would make the model too deep: \(problem.description)",
                        ticket: ticket, source: source, work: &work)
                    return
                }
            }
            work.state.model = model
            work.state.modelJSON = modelJSON
            work.modelChanged = true
        }
        work.state.seq += 1
        work.state.accepted += 1
        if !next.effects.isEmpty { work.effects.append(contentsOf: next.effects) }
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
            let line = JSONLine.object([("trace", "event"), ("seq", .number(JSONNumber(seq))), ("event", traced)])
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
        guard let ticket else {
            work.unansweredRejections.append((source, message))
            return
        }
        let reply: LoopReply = ticket.mode == .off ? .none : .line(JSONLine.error(code, message, line: ticket.line))
        work.outputs.append(.reply(ticket.connection, reply))
    }

    // MARK: - Requests

    private func answer(
        _ request: LoopRequest, ticket: ReplyTicket, work: inout PassWork<Model, Effect>
    ) -> LoopReply {
        let seqValue = JSONValue.number(JSONNumber(work.state.seq))
        switch request {
        case .model(let path), .subscribe(let path):
            guard let model = modelJSON(&work.state) else {
                return .line(JSONLine.error(.internal, "the app could not encode its model", line: ticket.line))
            }
            let value = path.map { $0.value(in: model) ?? .null } ?? model
            guard case .subscribe = request else {
                return .line(JSONLine.object([("ok", true), ("seq", seqValue), ("model", value)]))
            }
            if !isSubscribed(ticket.connection)
                && !work.streamChanges.contains(where: { $0.subscribes(ticket.connection) })
            {
                work.subscriberCount += 1
            }
            work.streamChanges.append(.subscribe(ticket.connection, path: path, value: value, seq: work.state.seq))
            return .line(
                JSONLine.object([("ok", true), ("seq", seqValue), ("epoch", .string(epoch)), ("model", value)]))
        case .ping:
            return .line(JSONLine.object([("ok", true), ("seq", seqValue)]))
        case .hello:
            return .line(
                JSONLine.object([
                    ("ok", true), ("protocol", 1), ("daemon", "mobiusd"), ("version", .string(version)),
                    ("app", .string(app.name)), ("epoch", .string(epoch)), ("seq", seqValue),
                    ("ephemeral", .bool(commitHook?.isEphemeral ?? false)),
                ]))
        case .status:
            return .line(statusLine(work))
        case .log(let request):
            return logReply(request, ticket: ticket, work: &work)
        case .monitor:
            if !work.monitors.contains(ticket.connection) { work.monitors.append(ticket.connection) }
            work.streamChanges.append(.monitor(ticket.connection))
            return .line(JSONLine.object([("ok", true), ("seq", seqValue)]))
        case .control:
            // `step` makes a control command an output of the pass; it never gets here.
            return .line(JSONLine.error(.internal, "a control command was answered as a request", line: ticket.line))
        }
    }

    /// The JSON form of a pass's model, cached in its state.
    private func modelJSON(_ state: inout LoopState<Model>) -> JSONValue? {
        if let cached = state.modelJSON { return cached }
        guard let encoded = try? encodeModel(state.model) else { return nil }
        state.modelJSON = encoded
        return encoded
    }

    private func statusLine(_ work: PassWork<Model, Effect>) -> [UInt8] {
        let uptime = Double(SystemProcess.monotonicNanoseconds() - stats.startedAt) / 1e9
        var queues: [(String, JSONValue)] = [("capacity", .number(JSONNumber(capacity)))]
        let depths = queueDepths()
        for kind in EventSourceKind.allCases {
            queues.append((kind.rawValue, .number(JSONNumber(depths[kind] ?? 0))))
        }
        let dropped = droppedByInboxes()
        queues.append(
            ("dropped", .object(JSONObject(dropped.map { ($0.key.rawValue, .number(JSONNumber($0.value))) }))))
        var members: [(String, JSONValue)] = [
            ("ok", true),
            ("app", .string(app.name)),
            ("seq", .number(JSONNumber(work.state.seq))),
            ("epoch", .string(epoch)),
            ("version", .string(version)),
            ("uptime", .number(JSONNumber((uptime * 1000).rounded() / 1000) ?? JSONNumber(0))),
            ("subscribers", .number(JSONNumber(work.subscriberCount))),
            ("monitors", .number(JSONNumber(work.monitors.count))),
            (
                "events",
                .object([
                    "accepted": .number(JSONNumber(work.state.accepted)),
                    "rejected": .number(JSONNumber(work.state.rejected)),
                    "rejectedFromOtherSources": .number(
                        JSONNumber(stats.sourceEventsRejected.load(ordering: .relaxed))),
                ])
            ),
            (
                "effects",
                .object([
                    "unhandled": .number(JSONNumber(stats.unhandledEffects.load(ordering: .relaxed))),
                    "libraryErrors": .number(JSONNumber(stats.libraryErrors.load(ordering: .relaxed))),
                ])
            ),
            ("queues", .object(JSONObject(queues))),
        ]
        if !started {
            members.append(("recovery", .string(recoveryTrouble ?? "replaying the journal")))
        }
        members.append(contentsOf: statusMembers())
        return JSONLine.object(members)
    }

}
