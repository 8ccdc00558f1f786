import MobiusCore

/// The policy: the mode follows the power source and charge; a change of mode is logged and announced; entering
/// `critical` asks logind to suspend once when the settings allow it; sleeps are logged and counted.
func powerUpdate(model: PowerModel, event: PowerEvent) -> Next<PowerModel, PowerEffect> {
    var next = model
    var effects: [PowerEffect] = []
    switch event {
    case .prepareForSleep(true):
        next.sleeping = true
        next.sleeps += 1
        effects.append(.log("power-policy: going to sleep (mode \(model.mode))"))
    case .prepareForSleep(false):
        next.sleeping = false
        effects.append(.log("power-policy: resumed"))
    case .power(let onBattery, let percentage):
        if let onBattery { next.onBattery = onBattery }
        if let percentage { next.percentage = percentage }
        next.mode = mode(next)
        if next.mode != model.mode {
            effects.append(.log("power-policy: mode \(model.mode) -> \(next.mode)"))
            effects.append(.announce(mode: next.mode, bus: model.settings.bus))
        }
        if next.mode != "critical" { next.suspendRequested = false }
        if next.mode == "critical" && model.settings.suspendWhenCritical && !next.suspendRequested {
            next.suspendRequested = true
            effects.append(.suspend(bus: model.settings.bus))
        }
    case .suspendAnswered(let error):
        effects.append(.log("power-policy: suspend \(error.map { "refused: \($0)" } ?? "accepted")"))
    }
    return next == model && effects.isEmpty ? .noChange : .next(next, effects: effects)
}

private func mode(_ model: PowerModel) -> String {
    guard model.onBattery, let percentage = model.percentage else { return "normal" }
    if percentage < model.settings.criticalBelow { return "critical" }
    if percentage < model.settings.saverBelow { return "saver" }
    return "normal"
}
