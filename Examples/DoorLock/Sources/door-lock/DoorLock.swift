import MobiusCore

/// What the daemon keeps and publishes: {"locked":true,"failedAttempts":0}.
struct DoorLock: Codable, Equatable, Sendable {
    var locked = true
    var failedAttempts = 0
}

/// What clients send: {"type":"unlock","code":"1234"} and {"type":"lock"}.
enum DoorEvent: Codable, Equatable, Sendable {
    case unlock(code: String)
    case lock
}

/// What the update asks for: {"type":"bolt","open":true} and {"type":"alarm","failedAttempts":3}.
enum DoorEffect: Codable, Equatable, Sendable {
    case bolt(open: Bool)
    case alarm(failedAttempts: Int)
}

let doorCode = "1234"
let alarmAfter = 3

func doorUpdate(model: DoorLock, event: DoorEvent) -> Next<DoorLock, DoorEffect> {
    switch event {
    case .lock:
        guard !model.locked else { return .noChange }
        return .next(DoorLock(locked: true, failedAttempts: model.failedAttempts), effects: [.bolt(open: false)])
    case .unlock(let code) where code == doorCode:
        guard model.locked else { return .noChange }
        return .next(DoorLock(locked: false, failedAttempts: 0), effects: [.bolt(open: true)])
    case .unlock:
        let failed = model.failedAttempts + 1
        return .next(
            DoorLock(locked: model.locked, failedAttempts: failed),
            effects: failed == alarmAfter ? [.alarm(failedAttempts: failed)] : [])
    }
}
