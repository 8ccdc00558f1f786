import MobiusCore
import MobiusJSON

/// Routes the loop's effects once their pass is committed: first to the app's Swift handlers, then to the daemon's
/// built-ins by routing key (docs/protocol.md 2.4); an effect nobody handles is logged (rate-limited) and counted, never
/// a crash. Order: Swift handlers, built-ins (`mobiusd.` keys), plugins, then the app's fallbacks.
final class EffectDispatcher<Model, Event, Effect> {
    private let app: DaemonApp<Model, Event, Effect>
    private let log: DaemonLog
    private let stats: DaemonStats
    private let builtins: BuiltinEffects
    /// The plugins, which take effects by the keys they announced; `nil` when the daemon runs none.
    private let plugins: PluginHost?
    private let swiftHandler: (accept: (Effect) -> Bool, dispose: () -> Void)?

    /// - Parameter send: delivers events from Swift effect handlers to the loop (from any thread).
    init(
        app: DaemonApp<Model, Event, Effect>, log: DaemonLog, stats: DaemonStats, builtins: BuiltinEffects,
        plugins: PluginHost?, send: @escaping (Event) -> Void
    ) {
        self.app = app
        self.log = log
        self.stats = stats
        self.builtins = builtins
        self.plugins = plugins
        self.swiftHandler = app.effects?.connectAsPartialHandler(send)
    }

    /// Dispatches `effects` in order; `trace` gets each effect's JSON first when monitors are watching.
    func dispatch(_ effects: [Effect], trace: ((JSONValue) -> Void)?) {
        for effect in effects {
            trace?((try? app.codec.encodeEffect(effect)) ?? .null)
            if let swiftHandler, swiftHandler.accept(effect) { continue }
            let json: JSONValue
            do {
                json = try app.codec.encodeEffect(effect)
            } catch {
                stats.unhandledEffects.add(1, ordering: .relaxed)
                log.limited(
                    "effect not handled", .warning, "effect not handled (it cannot be encoded: \(Self.reason(error)))")
                continue
            }
            guard let key = EffectRoutingKey.of(json) else {
                unhandled(json, because: "it has no routing key")
                continue
            }
            do {
                if try builtins.handle(json, key: key) { continue }
                if let plugins, plugins.route(json, key: key) { continue }
                if let fallback = app.effectFallbacks[key] {
                    let stand = fallback(json)
                    if let standKey = EffectRoutingKey.of(stand), try builtins.handle(stand, key: standKey) { continue }
                }
                unhandled(json, because: "no handler takes key \"\(key)\"")
            } catch {
                stats.unhandledEffects.add(1, ordering: .relaxed)
                log.limited("effect failed", .warning, "effect failed: \(error)")
            }
        }
    }

    /// An encoding error as the app's author needs it: what the encoder said, not Swift's dump of the value.
    private static func reason(_ error: any Error) -> String {
        guard case EncodingError.invalidValue(_, let context) = error else { return "\(error)" }
        return context.debugDescription
    }

    private func unhandled(_ effect: JSONValue, because reason: String) {
        stats.unhandledEffects.add(1, ordering: .relaxed)
        log.limited(
            "effect not handled", .warning,
            "effect not handled (\(reason)): \(String(decoding: effect.encoded().prefix(256), as: UTF8.self))")
    }

    func dispose() {
        swiftHandler?.dispose()
    }
}
