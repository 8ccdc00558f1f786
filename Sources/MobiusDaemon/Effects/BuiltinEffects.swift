import MobiusJSON

/// Effects the daemon handles itself; their routing keys start with `mobiusd.`.
///
/// - `mobiusd.log`: `{"type":"mobiusd.log","message":"text","level":"info"}` writes a log line (levels: error,
///   warning, notice, info, debug; default info).
/// - `mobiusd.after`: `{"type":"mobiusd.after","ms":N,"event":E}` delivers `E` to the loop after `N` milliseconds
///   (or `"seconds":S`; at most a year), as an event from a timer. At most `maxPendingTimers` wait at once; timers still pending
///   at shutdown are dropped.
final class BuiltinEffects {
    /// Why a built-in effect could not be carried out.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let maxPendingTimers = 65_536
    static let maxDelaySeconds = 31_536_000.0

    private let log: DaemonLog
    private let reactor: Reactor
    private let deliver: (JSONValue) -> Void
    private var pendingTimers = 0
    /// `mobiusd.dbus.call` and `mobiusd.dbus.emit` (DBus/DBusEffects); `nil` leaves them to other handlers.
    private let dbus: DBusEffects?

    /// - Parameters:
    ///   - dbus: carries out `mobiusd.dbus.*`; `nil` leaves them to other handlers.
    ///   - deliver: hands a timer's event to the loop (reactor thread).
    init(log: DaemonLog, reactor: Reactor, dbus: DBusEffects?, deliver: @escaping (JSONValue) -> Void) {
        self.log = log
        self.reactor = reactor
        self.dbus = dbus
        self.deliver = deliver
    }

    /// Carries out `effect` if it is a built-in: `true` when handled, `false` when it is not a built-in.
    /// - Throws: `Failure` for a built-in effect that is malformed or over a limit.
    func handle(_ effect: JSONValue, key: String) throws(Failure) -> Bool {
        switch key {
        case "mobiusd.log":
            let message = effect["message"]?.stringValue ?? String(decoding: effect.encoded(), as: UTF8.self)
            let level = effect["level"]?.stringValue.flatMap(DaemonLog.Level.init(name:)) ?? .info
            log.write(level, message)
            return true
        case "mobiusd.after":
            let seconds: Double
            if let milliseconds = effect["ms"]?.doubleValue {
                seconds = milliseconds / 1000
            } else if let given = effect["seconds"]?.doubleValue {
                seconds = given
            } else {
                seconds = .nan
            }
            guard seconds.isFinite, seconds >= 0, seconds <= Self.maxDelaySeconds else {
                throw Failure(
                    description:
                        "mobiusd.after needs \"ms\" from 0 to \(Int(Self.maxDelaySeconds * 1000)) (or \"seconds\" from 0 to \(Int(Self.maxDelaySeconds)))"
                )
            }
            guard let event = effect["event"] else { throw Failure(description: "mobiusd.after needs an \"event\"") }
            guard pendingTimers < Self.maxPendingTimers else {
                throw Failure(description: "mobiusd.after: \(Self.maxPendingTimers) timers are already pending")
            }
            pendingTimers += 1
            reactor.after(nanoseconds: UInt64(seconds * 1e9)) { [self] in
                pendingTimers -= 1
                deliver(event)
            }
            return true
        default:
            if let dbus, key.hasPrefix("mobiusd.dbus.") { return try dbus.handle(effect, key: key) }
            return false
        }
    }
}
