import MobiusJSON

extension DaemonLoop {
    /// The first reply of `log` (docs/protocol.md 1.2), and the stream to start once the pass is out.
    func logReply(_ request: LogRequest, ticket: ReplyTicket, work: inout PassWork<Model, Effect>) -> LoopReply {
        guard let firstKept = commitHook?.firstLoggedSeq else {
            return .line(JSONLine.error(.unavailable, "this daemon keeps no event log", line: ticket.line))
        }
        let head = work.state.seq
        let wanted = request.since == .max ? request.since : request.since + 1
        let from = max(wanted, firstKept)
        work.streamChanges.append(
            .log(
                ticket.connection,
                LogStreamStart(from: from, stopAfter: request.follow ? nil : head, limit: request.limit)))
        var members: [(String, JSONValue)] = [
            ("ok", true), ("seq", .number(JSONNumber(head))), ("epoch", .string(epoch)),
            ("from", .number(JSONNumber(from))),
        ]
        if wanted < firstKept { members.append(("compacted", true)) }
        return .line(JSONLine.object(members))
    }
}
