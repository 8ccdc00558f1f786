/// The control server's command handler while the runtime is being built: the runtime owns the server, so the server
/// is made before the runtime can hand itself over, and the runtime takes the relay's commands as its init ends.
final class ControlCommandRelay: ControlCommandHandler {
    /// The runtime. Unowned, not weak: a weak reference gives the runtime a side table, which sends every retain and
    /// release of it down the slow path.
    unowned var runtime: (any ControlCommandHandler)?

    func perform(_ command: ControlCommand, line: Int, reply: @escaping ([UInt8]) -> Void) {
        guard let runtime else { preconditionFailure("a control command arrived before the runtime was built") }
        runtime.perform(command, line: line, reply: reply)
    }
}
