import MobiusJSON

/// Why the model at a seq cannot be given (`model {"at":N}`, `log {"models":true}`), each kind with its own error
/// reply, so a client can tell them apart (docs/protocol.md, "The model at a past seq").
enum HistoryProblem: Error, Sendable {
    /// The seq is after the last applied one.
    case future(head: UInt64)
    /// The seq is before everything kept; the lowest seq whose model can still be computed, if any.
    case compacted(firstSeq: UInt64?)
    /// The replay would cross seqs the journal cannot serve (the range, when it is one), or the snapshots it would
    /// start from cannot be read; the text says which, naming the file.
    case damaged(JournalCatalog.Damage?, String)
    /// The daemon cannot replay now or at all: no state directory, an update plugin, shutting down.
    case unavailable(ErrorCode, String)
    /// Too many replays are running or waiting.
    case overloaded(String)

    /// Why an app whose update is a plugin gets no models in `log` items.
    static let updatePluginReason =
        "the models of log items are not served for an app whose update is a plugin: each event's model would cost "
        + "a request of its own to the plugin; ask model {\"at\":N} for the seqs you need"

    var code: ErrorCode {
        switch self {
        case .future: return .invalidArgument
        case .compacted: return .unavailable
        case .damaged: return .journalDamaged
        case .unavailable(let code, _): return code
        case .overloaded: return .overloaded
        }
    }

    /// What went wrong with the model at `seq`, for a person.
    func message(at seq: UInt64) -> String {
        switch self {
        case .future(let head):
            return "seq \(seq) is in the future: the last applied seq is \(head)"
        case .compacted(let first?):
            return "the model at seq \(seq) is no longer kept: the oldest one the journal can give is at seq \(first) "
                + "(state.keepSnapshots keeps more snapshots, and the journal after the oldest)"
        case .compacted(nil):
            return "the model at seq \(seq) is no longer kept: the journal keeps no older history"
        case .damaged(_, let problem):
            return "the model at seq \(seq) cannot be computed: \(problem)"
        case .unavailable(_, let reason), .overloaded(let reason):
            return reason
        }
    }

    /// Members of the error object beyond code and message: `head`, `firstSeq` (with `compacted`), or the damaged
    /// range as `damaged` `{"from":A,"through":B}`.
    var details: [(String, JSONValue)] {
        switch self {
        case .future(let head):
            return [("head", .number(JSONNumber(head)))]
        case .compacted(let first):
            return [("compacted", true)] + (first.map { [("firstSeq", .number(JSONNumber($0)))] } ?? [])
        case .damaged(let damage?, _):
            let range = JSONObject([
                ("from", .number(JSONNumber(damage.firstSeq))), ("through", .number(JSONNumber(damage.lastSeq))),
            ])
            return [("damaged", .object(range))]
        case .damaged(nil, _), .unavailable, .overloaded:
            return []
        }
    }

    /// The error reply to a `model {"at":seq}` request on line `line`.
    func reply(at seq: UInt64, line: Int) -> [UInt8] {
        JSONLine.error(code, message(at: seq), line: line, details: details)
    }
}
