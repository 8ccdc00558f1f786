import MobiusJSON
import Synchronization

/// Where an exposure is (`status`: `expose.state`).
enum DBusExposureState: String, Sendable {
    /// The loop has not started yet (the journal's replay): there is no model to serve, so nothing is on the bus.
    case starting
    /// Connecting and asking for the name.
    case connecting
    /// Connected and owning the name: calls to it arrive.
    case connected
    /// Connected, but another connection owns the name; this one waits in its queue.
    case queued
    /// The last attempt failed or the bus went away; the next attempt waits for the backoff delay.
    case backoff
}

/// An exposure's state and counters, written by its bus thread and read by `status` on the reactor thread.
final class DBusExposureStatus: Sendable {
    /// A copy of the figures at one moment.
    struct Figures: Sendable {
        var state = DBusExposureState.starting
        /// `Send` calls handed to the loop.
        var sends: UInt64 = 0
        /// `Send` calls handed to the loop and not answered yet.
        var inFlight = 0
        /// Property reads and `Get` calls answered.
        var reads: UInt64 = 0
        /// `PropertiesChanged` signals emitted.
        var signals: UInt64 = 0
        /// Times a configured property's model value stopped fitting its type (it kept its last good value).
        var badValues: UInt64 = 0
        /// Connections made after the first.
        var reconnects: UInt64 = 0
        var lastError: String?
    }

    let config: DaemonConfig.Expose
    private let figures = Mutex(Figures())

    init(config: DaemonConfig.Expose) {
        self.config = config
    }

    func update(_ change: (inout Figures) -> Void) {
        figures.withLock { change(&$0) }
    }

    var snapshot: Figures { figures.withLock { $0 } }

    /// `{"bus":…,"name":…,"path":…,"state":…,"sends":N,"inFlight":N,"reads":N,"signals":N,"badValues":N,
    /// "reconnects":N,"lastError":…}`
    var json: JSONValue {
        let figures = snapshot
        return .object(
            JSONObject([
                ("bus", .string(config.bus)),
                ("name", .string(config.name)),
                ("path", .string(config.path)),
                ("state", .string(figures.state.rawValue)),
                ("sends", .number(JSONNumber(figures.sends))),
                ("inFlight", .number(JSONNumber(figures.inFlight))),
                ("reads", .number(JSONNumber(figures.reads))),
                ("signals", .number(JSONNumber(figures.signals))),
                ("badValues", .number(JSONNumber(figures.badValues))),
                ("reconnects", .number(JSONNumber(figures.reconnects))),
                ("lastError", figures.lastError.map(JSONValue.string) ?? .null),
            ]))
    }
}
