// A typed daemon app with programming errors in its effects: the effect `chime` matches two routes, and the effect
// `label` has a value labelled `type`, which the type-tagged shape cannot write. The hostile-input integration tests
// run it to check that such an app error is logged and counted, not a trap that takes the whole daemon down
// (docs/protocol.md 1.5).
import MobiusCore
import MobiusDaemon

/// How many times the bell was rung.
struct BellModel: Codable, Equatable, Sendable {
    var rings = 0
}

/// `{"type":"ring"}`: ring the bell (its effect has two routes); `{"type":"tap"}`: count without any effect;
/// `{"type":"mislabel"}`: emit the effect that cannot be encoded.
enum BellEvent: Codable, Equatable, Sendable {
    case ring
    case tap
    case mislabel
}

/// `{"type":"chime","_0":"…"}`; `label` has no JSON in the type-tagged shape.
enum BellEffect: Codable, Equatable, Sendable {
    case chime(String)
    case label(type: String)
}

func bellUpdate(model: BellModel, event: BellEvent) -> Next<BellModel, BellEffect> {
    var next = model
    next.rings += 1
    switch event {
    case .ring: return .next(next, effects: [.chime("ding")])
    case .tap: return .next(next)
    case .mislabel: return .next(next, effects: [.label(type: "brass")])
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
