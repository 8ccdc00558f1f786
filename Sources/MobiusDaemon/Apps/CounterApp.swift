import MobiusCore
import MobiusJSON

/// The embedded default app: the Mobius README counter as a JSON app.
///
/// Model: a 64-bit integer (default 0). Events: `{"type":"increment"}` and `{"type":"decrement"}`; anything else
/// is rejected with `InvalidEvent`, and so is an increment at the largest 64-bit integer (the counter never
/// wraps). Decrementing at 0 (or below, for a negative starting model) leaves the model alone and emits the effect
/// `{"type":"beep"}` (the README's "play a sound"). The bundled `mobiusd-beep` plugin handles it when it is
/// installed next to `mobiusd` or on PATH; otherwise it becomes a built-in log line.
public enum CounterApp {
    /// The counter under its default name, `counter`.
    public static func make() -> DaemonApp<JSONValue, JSONValue, JSONValue> {
        var app = DaemonApp.json(
            name: "counter", model: 0, update: update, validate: validate, validateModel: validateModel)
        app.exampleEvent = ["type": "increment"]
        app.bundledPlugins = [("beep", "mobiusd-beep")]
        app.effectFallbacks = [
            "beep": { _ in
                [
                    "type": "mobiusd.log", "level": "notice",
                    "message": "counter: decrement at 0 ignored (beep; install mobiusd-beep to hear it)",
                ]
            }
        ]
        app.modelDepth = .boundedByApp  // a number
        return app
    }

    static func update(model: JSONValue, event: JSONValue) throws -> Next<JSONValue, JSONValue> {
        let count = model.int64Value ?? 0
        switch event["type"]?.stringValue {
        case "increment":
            guard count < Int64.max else {
                throw EventRejection("the counter is at its maximum (\(Int64.max)); increment would overflow")
            }
            return .next(.number(JSONNumber(count + 1)))
        case "decrement" where count > 0:
            return .next(.number(JSONNumber(count - 1)))
        case "decrement":
            return .dispatchEffects([["type": "beep"]])
        default:
            return .noChange
        }
    }

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    @Sendable static func validateModel(_ model: JSONValue) throws {
        guard model.int64Value != nil else {
            throw Invalid(description: "the counter's model is an integer")
        }
    }

    @Sendable static func validate(_ event: JSONValue) throws {
        switch event["type"]?.stringValue {
        case "increment", "decrement":
            return
        default:
            throw Invalid(
                description: "the counter takes {\"type\":\"increment\"} or {\"type\":\"decrement\"}")
        }
    }
}
