// A JSON app for the D-Bus integration tests: it accepts every event, counts them and keeps the last 64 in its
// model (`{"count":N,"events":[…]}`), so tests read what a D-Bus source produced with `model`. An event
// with an `effect` member emits that effect, so tests drive `mobiusd.dbus.call` and `mobiusd.dbus.emit` from the
// socket.
import MobiusCore
import MobiusDaemon
import MobiusJSON

func recorderUpdate(model: JSONValue, event: JSONValue) -> Next<JSONValue, JSONValue> {
    let count = (model["count"]?.int64Value ?? 0) + 1
    let events = (model["events"]?.arrayValue ?? []).suffix(63) + [event]
    let next: JSONValue = ["count": .number(JSONNumber(count)), "events": .array(Array(events))]
    if let effect = event["effect"] { return .next(next, effects: [effect]) }
    return .next(next)
}

MobiusDaemon.main(app: .json(name: "recorder", model: ["count": 0, "events": []], update: recorderUpdate))
