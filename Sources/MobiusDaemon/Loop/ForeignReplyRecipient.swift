/// Takes the replies to requests that came from outside the control socket (D-Bus `Send`). Their tickets carry a
/// connection id the control server never gives out (`ForeignConnectionID`), so the server hands their replies
/// here instead of to a connection.
protocol ForeignReplyRecipient: AnyObject {
    /// The reply to the request whose ticket named `id` (reactor thread; must not block).
    func deliver(_ reply: LoopReply, to id: ConnectionID)
}

/// Connection ids for requests from outside the control socket. The control server's ids are slot keys (a slot
/// index in the low 32 bits, the slot's generation above); these have the slot index `UInt32.max`, which its table
/// never reaches, and the caller's own number above.
enum ForeignConnectionID {
    static let slot: UInt64 = 0xFFFF_FFFF

    /// The id for the caller's request `number`.
    static func make(_ number: UInt32) -> ConnectionID { UInt64(number) << 32 | slot }

    /// Whether `id` was made by `make`, and its number.
    static func number(of id: ConnectionID) -> UInt32? {
        id & slot == slot ? UInt32(truncatingIfNeeded: id >> 32) : nil
    }
}
