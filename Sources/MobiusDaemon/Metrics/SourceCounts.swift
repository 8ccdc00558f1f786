/// A count per event source kind, stored inline so that a pass can carry it without an allocation.
struct SourceCounts: Sendable, Equatable {
    private var client: UInt64 = 0
    private var effect: UInt64 = 0
    private var timer: UInt64 = 0
    private var plugin: UInt64 = 0
    private var dbus: UInt64 = 0

    subscript(kind: EventSourceKind) -> UInt64 {
        get {
            switch kind {
            case .client: client
            case .effect: effect
            case .timer: timer
            case .plugin: plugin
            case .dbus: dbus
            }
        }
        set {
            switch kind {
            case .client: client = newValue
            case .effect: effect = newValue
            case .timer: timer = newValue
            case .plugin: plugin = newValue
            case .dbus: dbus = newValue
            }
        }
    }

    /// The sum over every kind.
    var total: UInt64 { client &+ effect &+ timer &+ plugin &+ dbus }

    /// Adds `other`'s counts to these.
    mutating func add(_ other: SourceCounts) {
        for kind in EventSourceKind.allCases { self[kind] &+= other[kind] }
    }
}
