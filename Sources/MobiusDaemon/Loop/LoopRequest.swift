import MobiusJSON

/// A request the loop answers in order with the events around it.
enum LoopRequest: Sendable {
    case model(path: JSONPointer?)
    /// `model {"at":N}`: the model right after seq N (docs/durability.md, "The model at any seq").
    case modelAt(seq: UInt64, path: JSONPointer?)
    case subscribe(path: JSONPointer?)
    case ping
    case hello
    case status
    case monitor
    case log(LogRequest)
    /// `reload` or `plugin`: carried out once the requests before it on the connection are answered.
    case control(ControlCommand)
}

extension LoopRequest {
    /// Whether the answer carries the model or the seq, and so waits for recovery to finish (`status` alone says
    /// how recovery is going).
    var needsRecoveredState: Bool {
        switch self {
        case .status, .control: return false
        default: return true
        }
    }
}
