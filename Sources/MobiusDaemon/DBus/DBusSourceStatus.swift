import MobiusJSON
import Synchronization

/// One source's counters and state, written by its bus thread and read by `status` on the reactor thread.
final class DBusSourceStatus: Sendable {
    /// A copy of the figures at one moment.
    struct Figures: Sendable {
        var state = DBusConnectionState.connecting
        /// Signals that matched and went to the loop.
        var signals: UInt64 = 0
        /// Matching signals refused because the bus's inbox was full or over its memory budget.
        var dropped: UInt64 = 0
        /// Matching signals over `maxValues` or `maxStringBytes`, not converted.
        var tooLarge: UInt64 = 0
        /// Initial reads that produced an event.
        var reads: UInt64 = 0
        /// Connections made after the first.
        var reconnects: UInt64 = 0
        var lastError: String?
    }

    let name: String
    let bus: String
    private let figures = Mutex(Figures())

    init(name: String, bus: String) {
        self.name = name
        self.bus = bus
    }

    func update(_ change: (inout Figures) -> Void) {
        figures.withLock { change(&$0) }
    }

    var snapshot: Figures { figures.withLock { $0 } }

    /// `{"bus":…,"state":…,"signals":N,"dropped":N,"tooLarge":N,"reads":N,"reconnects":N,"lastError":…}`
    var json: JSONValue {
        let figures = snapshot
        return .object(
            JSONObject([
                ("bus", .string(bus)),
                ("state", .string(figures.state.rawValue)),
                ("signals", .number(JSONNumber(figures.signals))),
                ("dropped", .number(JSONNumber(figures.dropped))),
                ("tooLarge", .number(JSONNumber(figures.tooLarge))),
                ("reads", .number(JSONNumber(figures.reads))),
                ("reconnects", .number(JSONNumber(figures.reconnects))),
                ("lastError", figures.lastError.map(JSONValue.string) ?? .null),
            ]))
    }
}
