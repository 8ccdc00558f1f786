import MobiusJSON

/// One model value served as a property of `org.mobiusd.App1` (config `expose.properties`): its name, where it is in
/// the model, and its D-Bus type (a basic type; `s` takes any value, a string as itself and anything else as its
/// JSON text).
struct ExposedProperty: Sendable, Equatable {
    let name: String
    let pointer: JSONPointer
    let type: DBusType
}
