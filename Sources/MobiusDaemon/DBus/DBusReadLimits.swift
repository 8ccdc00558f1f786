/// How much of one message is converted to JSON. A message past either limit is not converted at all (it is
/// counted as `tooLarge`), so a peer cannot make the daemon build an arbitrarily big event: the bus allows
/// messages of up to 128 MiB (session) or 32 MiB (system).
///
/// Events waiting for the loop cost their estimated size against a budget per bus (`busBudget`). The limits must
/// keep a message within it (`problem`), so a signal within them is never refused by a loop that has nothing
/// waiting.
struct DBusReadLimits: Sendable, Equatable {
    /// Values (numbers, strings, containers) in one message, from the source's `maxValues`; default 65,536.
    var maxValues = 65_536
    /// Bytes of string text in one message, from the source's `maxStringBytes`; default 4 MiB.
    var maxStringBytes = 4 << 20
    /// Containers nested in one value. libdbus refuses messages nested deeper than 64 levels before they get
    /// here, so this is a second fence with the JSON limit.
    static let maxDepth = 512

    /// The estimated bytes of one converted value, and what an event costs beyond its values and strings.
    static let valueCost = 32
    static let eventCost = 256
    /// Events waiting for the loop may cost at most this much memory per bus (64 MiB); past it signals are dropped
    /// and counted like a full inbox.
    static let busBudget = 64 << 20

    /// The cost of the largest event these limits let through.
    var largestEventCost: Int { maxValues * Self.valueCost + maxStringBytes + Self.eventCost }

    /// Which key makes a message that reaches the limits cost more than `busBudget`, and why; `nil` when the
    /// largest event fits.
    var problem: (key: String, message: String)? {
        guard largestEventCost > Self.busBudget else { return nil }
        let budget = "the \(Self.busBudget >> 20) MiB a bus may hold for the loop"
        let mostStringBytes = Self.busBudget - Self.eventCost - Self.valueCost
        guard maxStringBytes <= mostStringBytes else {
            return (
                "maxStringBytes",
                "\(maxStringBytes) bytes can never be reached: a message with them is over \(budget); "
                    + "at most \(mostStringBytes)"
            )
        }
        let mostValues = (Self.busBudget - Self.eventCost - maxStringBytes) / Self.valueCost
        return (
            "maxValues",
            "\(maxValues) values can never be reached: at \(Self.valueCost) bytes each, with maxStringBytes "
                + "\(maxStringBytes), a message with them costs \(largestEventCost) bytes, over \(budget); "
                + "at most \(mostValues) with this maxStringBytes"
        )
    }
}
