/// How much of one message is converted to JSON. A message past either limit is not converted at all (it is
/// counted as `tooLarge`), so a peer cannot make the daemon build an arbitrarily big event: the bus allows
/// messages of up to 128 MiB (session) or 32 MiB (system).
struct DBusReadLimits: Sendable, Equatable {
    /// Values (numbers, strings, containers) in one message, from the source's `maxValues`; default 65,536.
    var maxValues = 65_536
    /// Bytes of string text in one message, from the source's `maxStringBytes`; default 4 MiB.
    var maxStringBytes = 4 << 20
    /// Containers nested in one value. libdbus refuses messages nested deeper than 64 levels before they get
    /// here, so this is a second fence with the JSON limit.
    static let maxDepth = 512
}
