import MobiusJSON

/// An event from a bus thread on its way to the loop: the event, the source's name (for `monitor`), and its
/// cost against the bus's in-flight budget (returned when the loop takes it).
struct DBusDelivery: Sendable {
    let event: JSONValue
    let source: String
    let cost: Int
}
