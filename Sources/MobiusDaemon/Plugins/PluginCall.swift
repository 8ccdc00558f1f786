import MobiusJSON

/// A request the host sent a plugin and has not had answered, other than the update request in flight, which the
/// runner keeps apart (one at a time).
enum PluginCall {
    case initialize
    /// An effect; `deadline` (monotonic nanoseconds) is when it times out unless `progress` or an answer comes.
    case effect(effect: JSONValue, deadline: UInt64)
    case shutdown
}

/// An `init`, `update` or `updateBatch` request waiting for its answer; sent again after a restart (update is pure).
final class PluginUpdateCall {
    /// Why an update request got no result.
    enum Failure: Error {
        /// The plugin answered with a JSON-RPC error: the event is rejected with this message.
        case rejected(String)
        /// The plugin is `failed` or stopping: no update can be had.
        case unavailable(String)
        /// The plugin died on this request `crashesPerEvent` times: the message says how, with its last stderr line.
        case crashed(String)
    }

    let method: String
    /// The request's `params`, encoded once (a batch's events are the texts they arrived as).
    let params: [UInt8]
    let completion: (Result<JSONValue, Failure>) -> Void
    /// How many times the plugin died with this request in flight.
    var deaths = 0

    init(method: String, params: [UInt8], completion: @escaping (Result<JSONValue, Failure>) -> Void) {
        self.method = method
        self.params = params
        self.completion = completion
    }
}
