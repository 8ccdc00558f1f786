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
