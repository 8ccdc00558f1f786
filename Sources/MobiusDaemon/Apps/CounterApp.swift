import MobiusCore
import MobiusJSON

/// The embedded default app: the Mobius README counter as a JSON app.
///
/// Model: an integer (default 0). Events: `{"type":"increment"}` and `{"type":"decrement"}`; anything else is
/// rejected with `InvalidEvent`. Decrementing at 0 leaves the model alone and emits the built-in effect
/// `{"type":"mobiusd.log","level":"notice","message":"…"}` (the README's "play a sound"), which the daemon logs.
public enum CounterApp {
    /// The counter under its default name, `counter`.
    public static func make() -> DaemonApp<JSONValue, JSONValue, JSONValue> {
        var app = DaemonApp.json(
            name: "counter", model: 0, update: update, validate: validate, validateModel: validateModel)
        app.exampleEvent = ["type": "increment"]
        return app
    }

    static func update(model: JSONValue, event: JSONValue) -> Next<JSONValue, JSONValue> {
        let count = model.int64Value ?? 0
        switch event["type"]?.stringValue {
        case "increment":
            return .next(.number(JSONNumber(count &+ 1)))
        case "decrement" where count > 0:
            return .next(.number(JSONNumber(count - 1)))
        case "decrement":
            return .dispatchEffects([
                [
                    "type": "mobiusd.log", "level": "notice",
                    "message": "counter: decrement at 0 ignored (the README counter would beep here)",
                ]
            ])
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
