// A typed daemon app with a programming error in its effect routes: the effect `chime` matches two routes. The
// hostile-input integration tests run it to check that such an app error is logged and counted, not a trap that
// takes the whole daemon down (PROTOCOL.md 1.5).
import MobiusCore
import MobiusDaemon

/// How many times the bell was rung.
struct BellModel: Codable, Equatable, Sendable {
    var rings = 0
}

/// `{"type":"ring"}`: ring the bell (its effect has two routes); `{"type":"tap"}`: count without any effect.
enum BellEvent: Codable, Equatable, Sendable {
    case ring
    case tap
}

/// `{"type":"chime","_0":"…"}`.
enum BellEffect: Codable, Equatable, Sendable {
    case chime(String)
}

func bellUpdate(model: BellModel, event: BellEvent) -> Next<BellModel, BellEffect> {
    var next = model
    next.rings += 1
    switch event {
    case .ring: return .next(next, effects: [.chime("ding")])
    case .tap: return .next(next)
    }
}

// Both routes take every `chime`: the enum-case route and a hand-written extractor for the same case.
let effects = EffectRouter<BellEffect, BellEvent>()
    .routeCase(BellEffect.chime).to { (_: String) in }
    .routeEffects(withParameters: { effect -> String? in
        if case .chime(let sound) = effect { return sound }
        return nil
    }).to { (_: String) in }

MobiusDaemon.main(app: DaemonApp(name: "route-conflict", model: BellModel(), update: bellUpdate, effects: effects))
