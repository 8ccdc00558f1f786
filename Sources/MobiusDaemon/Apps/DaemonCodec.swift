import MobiusJSON

/// How an app's types become JSON and back.
struct DaemonCodec<Model, Event, Effect> {
    /// Turns a client's (or plugin's) JSON event into the app's event; throwing rejects it with `InvalidEvent`.
    let decodeEvent: (consuming JSONValue) throws -> Event
    let encodeEvent: (Event) -> JSONValue
    /// Throws when the model cannot be encoded, e.g. a typed model nested deeper than JSON's limit.
    let encodeModel: (Model) throws -> JSONValue
    let decodeModel: (JSONValue) throws -> Model
    /// Throws when the effect has no JSON, e.g. a typed effect with a non-finite number or, in the type-tagged
    /// shape, a value labelled `type`.
    let encodeEffect: (Effect) throws -> JSONValue
}
