import MobiusCore
import MobiusJSON

/// Routes the loop's effects: first to the app's Swift handlers, then to the daemon's built-ins by routing key
/// (PROTOCOL.md 2.4); an effect nobody handles is logged and counted, never a crash. Plugins join here when they
/// land.
final class EffectDispatcher<Model, Event, Effect> {
    private let app: DaemonApp<Model, Event, Effect>
    private let log: DaemonLog
    private let stats: DaemonStats
    private let swiftHandler: (accept: (Effect) -> Bool, dispose: () -> Void)?

    /// - Parameter send: delivers events from Swift effect handlers to the loop (any thread).
    init(app: DaemonApp<Model, Event, Effect>, log: DaemonLog, stats: DaemonStats, send: @escaping (Event) -> Void) {
        self.app = app
        self.log = log
        self.stats = stats
        self.swiftHandler = app.effects?.connectAsPartialHandler(send)
    }

    /// Dispatches `effects` in order; monitors get a trace line for each.
    func dispatch(_ effects: [Effect], traceTo monitors: Set<ConnectionID>, outbound: OutboundQueue) {
        guard !effects.isEmpty else { return }
        var traces: [LoopOutput] = []
        for effect in effects {
            if !monitors.isEmpty {
                let line = JSONLine.object([("trace", "effect"), ("effect", app.codec.encodeEffect(effect))])
                for monitor in monitors { traces.append(.trace(monitor, line)) }
            }
            if let swiftHandler, swiftHandler.accept(effect) { continue }
            let json = app.codec.encodeEffect(effect)
            if !BuiltinEffects.handle(json, log: log) {
                stats.unhandledEffects.add(1, ordering: .relaxed)
                let key = EffectRoutingKey.of(json).map { "key \"\($0)\"" } ?? "no routing key"
                log.warning("effect not handled (\(key)): \(String(decoding: json.encoded(), as: UTF8.self))")
            }
        }
        outbound.send(traces)
    }

    func dispose() {
        swiftHandler?.dispose()
    }
}

/// PROTOCOL.md 2.4: the routing key of an effect.
enum EffectRoutingKey {
    /// A string is its own key; an object with a string `type` uses it; an object with exactly one member uses
    /// that member's name (Swift's Codable shape for enum cases). Anything else has none.
    static func of(_ effect: JSONValue) -> String? {
        switch effect {
        case .string(let key):
            return key
        case .object(let object):
            if case .string(let type)? = object["type"] { return type }
            if object.count == 1 { return object.keys.first }
            return nil
        default:
            return nil
        }
    }
}

/// Effects the daemon handles itself; their keys start with `mobiusd.`.
enum BuiltinEffects {
    /// Handles `effect` if it is a built-in; returns `false` otherwise.
    ///
    /// - `mobiusd.log`: `{"type":"mobiusd.log","message":"text","level":"info"}` writes a log line (levels:
    ///   error, warning, notice, info, debug; default info).
    static func handle(_ effect: JSONValue, log: DaemonLog) -> Bool {
        switch EffectRoutingKey.of(effect) {
        case "mobiusd.log":
            let message = effect["message"]?.stringValue ?? String(decoding: effect.encoded(), as: UTF8.self)
            let level = effect["level"]?.stringValue.flatMap(DaemonLog.Level.init(name:)) ?? .info
            log.write(level, message)
            return true
        default:
            return false
        }
    }
}
