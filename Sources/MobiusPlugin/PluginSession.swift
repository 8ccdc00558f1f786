import MobiusJSON
import Synchronization

/// The running protocol of one plugin process: what the host has said so far, the effects in flight, and every
/// message the plugin sends. Lines are handed in by the thread that reads stdin (`receive`); handlers, sources
/// and hooks call in from their own tasks.
final class PluginSession: Sendable {
    /// How many events emitted before `initialized` are kept for it.
    static let maxEarlyEvents = 1024

    struct InFlight {
        let state: EffectState
        let task: Task<Void, Never>
    }

    struct State {
        var configuration: PluginConfiguration? = nil
        var started = false
        var shuttingDown = false
        var early: [JSONValue] = []
        var droppedEarly = 0
        var inFlight: [JSONValue: InFlight] = [:]
    }

    let plugin: Plugin
    let writer: MessageWriter
    let handlers: [String: Plugin.Handler]
    let state = Mutex(State())

    init(plugin: Plugin, writer: MessageWriter) {
        self.plugin = plugin
        self.writer = writer
        var handlers: [String: Plugin.Handler] = [:]
        for entry in plugin.handlers { handlers[entry.key] = entry.handler }
        self.handlers = handlers
    }

    // MARK: Sending

    /// Sends a reply; a reply too long for the host becomes an error reply saying so. `deferred` (the reader
    /// thread's replies) leaves it for the writer's `flushPending`.
    func reply(id: JSONValue, result: JSONValue, deferred: Bool = false) {
        if !writer.send(line: RPCMessage.resultLine(id: id, result), deferred: deferred) && !writer.hasFailed {
            let size = result.encoded().count
            PluginLog.error("reply to request \(describe(id)) dropped: \(size) bytes exceed the line limit")
            replyError(
                id: id, code: PluginError.defaultCode,
                message: "the result is \(size) bytes, over the host's line limit of \(writer.maxLineBytes) bytes")
        }
    }

    /// Sends an error reply (its message cut to keep the line short).
    func replyError(id: JSONValue, code: Int, message: String, deferred: Bool = false) {
        let text =
            message.utf8.count > 4096 ? String(decoding: Array(message.utf8.prefix(4096)), as: UTF8.self) : message
        writer.send(RPCMessage.error(id: id, code: code, message: text), deferred: deferred)
    }

    func sendTied(_ event: JSONValue, id: JSONValue, state effect: EffectState) {
        guard effect.isRunning else { return }
        sendEvent(.object(["id": id, "event": event]))
    }

    func sendProgress(id: JSONValue, state effect: EffectState) {
        guard effect.isRunning else { return }
        writer.send(RPCMessage.notification("progress", .object(["id": id])))
    }

    func emitUnsolicited(_ event: JSONValue) {
        let early: Bool = state.withLock { state in
            if state.started { return false }
            if state.early.count < PluginSession.maxEarlyEvents {
                state.early.append(event)
            } else {
                state.droppedEarly += 1
            }
            return true
        }
        if !early { sendEvent(.object(["event": event])) }
    }

    private func sendEvent(_ params: JSONValue) {
        if !writer.send(RPCMessage.notification("event", params)) && !writer.hasFailed {
            PluginLog.error("event dropped: its line exceeds the host's limit of \(writer.maxLineBytes) bytes")
        }
    }

    // MARK: Effects

    /// Ends an effect with its handler's outcome, unless the host cancelled it.
    /// `deferred` for effects run inline on the reader thread (never registered in `inFlight`).
    func finish(
        id: JSONValue, state effect: EffectState, outcome: Result<[JSONValue], any Error>, deferred: Bool = false
    ) {
        if !deferred { _ = state.withLock { $0.inFlight.removeValue(forKey: id) } }
        guard effect.end() else { return }
        switch outcome {
        case .success(let events):
            reply(
                id: id, result: events.isEmpty ? .object([:]) : .object(["events": .array(events)]), deferred: deferred)
        case .failure(let error):
            let (code, message) = RPCMessage.describe(error)
            replyError(id: id, code: code, message: message, deferred: deferred)
        }
    }

    /// Cancels the effect with `id`; the handler's later output for it is dropped.
    func cancel(id: JSONValue) {
        guard let entry = state.withLock({ $0.inFlight.removeValue(forKey: id) }) else { return }
        if entry.state.cancel() { entry.task.cancel() }
    }

    /// Cancels every effect in flight.
    func cancelAll() {
        let all = state.withLock { state in
            let entries = Array(state.inFlight.values)
            state.inFlight.removeAll()
            return entries
        }
        for entry in all where entry.state.cancel() { entry.task.cancel() }
    }

    func describe(_ id: JSONValue) -> String {
        String(decoding: id.encoded().prefix(64), as: UTF8.self)
    }
}
