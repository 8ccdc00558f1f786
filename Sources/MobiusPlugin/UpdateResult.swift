import MobiusJSON

/// What an update plugin's `init` or `update` returns (Mobius `First` / `Next`): a new model or none, and effects.
public struct UpdateResult: Sendable, Hashable {
    /// The new model, or `nil` when the model does not change.
    public var model: JSONValue?
    /// The effects to run, in order.
    public var effects: [JSONValue]

    /// A result with an optional new model and effects.
    public init(model: JSONValue? = nil, effects: [JSONValue] = []) {
        self.model = model
        self.effects = effects
    }

    /// No new model and no effects.
    public static let noChange = UpdateResult()

    /// A new model with optional effects.
    public static func next(_ model: JSONValue, effects: [JSONValue] = []) -> UpdateResult {
        UpdateResult(model: model, effects: effects)
    }

    /// Only effects; the model stays.
    public static func dispatch(_ effects: [JSONValue]) -> UpdateResult {
        UpdateResult(model: nil, effects: effects)
    }

    /// The JSON-RPC result object: `{"model":M?,"effects":[...]?}`, members left out when empty.
    var json: JSONValue {
        var object = JSONObject()
        if let model { object["model"] = model }
        if !effects.isEmpty { object["effects"] = .array(effects) }
        return .object(object)
    }
}
