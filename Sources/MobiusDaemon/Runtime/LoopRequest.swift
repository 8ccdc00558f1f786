import MobiusJSON

/// A request the loop answers in order with the events around it.
enum LoopRequest: Sendable {
    case model(path: JSONPointer?)
    case subscribe(path: JSONPointer?)
    case ping
    case hello
    case status
    case monitor
    case log(LogRequest)
}

extension LoopRequest {
    /// Whether the answer carries the model or the seq, and so waits for recovery to finish (`status` alone says
    /// how recovery is going).
    var needsRecoveredState: Bool {
        if case .status = self { return false }
        return true
    }
}
