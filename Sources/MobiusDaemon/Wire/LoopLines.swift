import MobiusJSON

/// The lines the loop hands out, built here and nowhere else: replies to reads, stream items and monitor traces
/// (docs/protocol.md 1.2-1.4). Each is one compact JSON object and a newline.
enum LoopLines {
    /// `{"ok":true,"seq":N}`: `ping`, `monitor`.
    static func ok(seq: UInt64) -> [UInt8] {
        JSONLine.object([("ok", true), ("seq", number(seq))])
    }

    /// The reply to `model`.
    static func model(seq: UInt64, model: JSONValue) -> [UInt8] {
        JSONLine.object([("ok", true), ("seq", number(seq)), ("model", model)])
    }

    /// The reply to `subscribe`: the model (or the value at its path) as of `seq`.
    static func subscribed(seq: UInt64, epoch: String, model: JSONValue) -> [UInt8] {
        JSONLine.object([("ok", true), ("seq", number(seq)), ("epoch", .string(epoch)), ("model", model)])
    }

    /// A subscription's stream item: the newest model (or value at its path).
    static func modelChanged(seq: UInt64, model: JSONValue) -> [UInt8] {
        JSONLine.object([("seq", number(seq)), ("model", model)])
    }

    /// The reply to `hello`.
    static func hello(version: String, app: String, epoch: String, seq: UInt64, ephemeral: Bool) -> [UInt8] {
        JSONLine.object([
            ("ok", true), ("protocol", 1), ("daemon", "mobiusd"), ("version", .string(version)),
            ("app", .string(app)), ("epoch", .string(epoch)), ("seq", number(seq)), ("ephemeral", .bool(ephemeral)),
        ])
    }

    /// The first reply of `log`: the head, and the seq the stream starts from.
    static func logStarted(seq: UInt64, epoch: String, from: UInt64, compacted: Bool) -> [UInt8] {
        var members: [(String, JSONValue)] = [
            ("ok", true), ("seq", number(seq)), ("epoch", .string(epoch)), ("from", number(from)),
        ]
        if compacted { members.append(("compacted", true)) }
        return JSONLine.object(members)
    }

    /// The reply to `status`, from its members in order.
    static func status(_ members: [(String, JSONValue)]) -> [UInt8] {
        JSONLine.object([("ok", true)] + members)
    }

    /// A monitor's trace of an applied event.
    static func eventTrace(seq: UInt64, event: JSONValue) -> [UInt8] {
        JSONLine.object([("trace", "event"), ("seq", number(seq)), ("event", event)])
    }

    /// A monitor's trace of a committed model.
    static func modelTrace(seq: UInt64, model: JSONValue) -> [UInt8] {
        JSONLine.object([("trace", "model"), ("seq", number(seq)), ("model", model)])
    }

    /// A monitor's trace of a dispatched effect.
    static func effectTrace(_ effect: JSONValue) -> [UInt8] {
        JSONLine.object([("trace", "effect"), ("effect", effect)])
    }

    /// A monitor's trace of a plugin's new state, with why when it is not running.
    static func pluginTrace(name: String, state: String, reason: String?) -> [UInt8] {
        var members: [(String, JSONValue)] = [
            ("trace", "plugin"), ("plugin", .string(name)), ("state", .string(state)),
        ]
        if let reason { members.append(("reason", .string(reason))) }
        return JSONLine.object(members)
    }

    /// A monitor's trace of an event a D-Bus source delivered.
    static func dbusTrace(source: String, event: JSONValue) -> [UInt8] {
        JSONLine.object([("trace", "dbus"), ("source", .string(source)), ("event", event)])
    }

    private static func number(_ value: UInt64) -> JSONValue {
        .number(JSONNumber(value))
    }
}
