import MobiusJSON

/// The built-in effects `mobiusd.dbus.call` and `mobiusd.dbus.emit` (docs/dbus.md), checked and typed on the
/// reactor thread and sent by the bus's thread.
///
/// - `{"type":"mobiusd.dbus.call","bus":B,"destination":D,"path":P,"interface":I?,"member":M,"signature":S?,
///   "args":[…]?,"timeout":T?,"event":E?}`: the reply comes back as `E` plus `"reply":[…]`, a failure as `E` plus
///   `"error":{"name":…,"message":…}` (a bad argument too, naming it). Without `event` nobody waits for a reply.
/// - `{"type":"mobiusd.dbus.emit","bus":B,"path":P,"interface":I,"member":M,"signature":S?,"args":[…]?,
///   "destination":D?}` emits a signal.
final class DBusEffects {
    private let sources: DBusSources
    private let log: DaemonLog

    static let callKeys: Set<String> = [
        "type", "bus", "destination", "path", "interface", "member", "signature", "args", "timeout", "event",
    ]
    static let emitKeys: Set<String> = [
        "type", "bus", "destination", "path", "interface", "member", "signature", "args",
    ]
    static let defaultCallTimeout = 25.0

    init(sources: DBusSources, log: DaemonLog) {
        self.sources = sources
        self.log = log
    }

    /// Carries out a `mobiusd.dbus.*` effect: `false` for another key.
    /// - Throws: `BuiltinEffects.Failure` for a malformed effect that has no `event` to report it to.
    func handle(_ effect: JSONValue, key: String) throws(BuiltinEffects.Failure) -> Bool {
        switch key {
        case "mobiusd.dbus.call":
            // Only an object is a template (JSONValue is nil-literal expressible, so no `nil` literals here).
            var template: JSONValue? = .none
            if case .object(let object)? = effect["event"] { template = .object(object) }
            do {
                try call(effect, template: template)
            } catch {
                guard let template else { throw BuiltinEffects.Failure(description: "mobiusd.dbus.call: \(error)") }
                log.limited("dbus call", .warning, "mobiusd.dbus.call refused: \(error)")
                sources.deliverNow(Self.failureEvent(template, .invalidArgs(error.description)))
            }
            return true
        case "mobiusd.dbus.emit":
            do {
                try emit(effect)
            } catch {
                throw BuiltinEffects.Failure(description: "mobiusd.dbus.emit: \(error)")
            }
            return true
        default:
            return false
        }
    }

    static func failureEvent(_ template: JSONValue, _ failure: DBusFailure) -> JSONValue {
        var object = template.objectValue ?? JSONObject()
        object["error"] = .object(
            JSONObject([("name", .string(failure.name)), ("message", .string(failure.message))]))
        return .object(object)
    }

    private func call(_ effect: JSONValue, template: JSONValue?) throws(DBusArgumentError) {
        let fields = try DBusEffectFields(effect, allowed: Self.callKeys)
        // (JSONValue is nil-literal expressible: `effect["event"] != nil` would compare with `null`.)
        if case .some = effect["event"], case .none = template {
            throw DBusArgumentError(argument: "event", problem: "must be an object (the reply's event)")
        }
        let bus = try fields.bus()
        let call = DBusMethodCall(
            destination: try fields.name("destination", DBusNames.isBusName, "a bus name", required: true)!,
            path: try fields.name("path", DBusNames.isObjectPath, "an object path", required: true)!,
            interface: try fields.name("interface", DBusNames.isInterface, "an interface name", required: false),
            member: try fields.name("member", DBusNames.isMember, "a member name", required: true)!,
            arguments: try fields.arguments(),
            timeout: try fields.timeout(default: Self.defaultCallTimeout))
        guard let message = call.message() else {
            throw DBusArgumentError(argument: "args", problem: "libdbus could not build the message (out of memory)")
        }
        if case .none = template { message.setNoReply() }
        let what = "\(call.destination) \(call.interface.map { "\($0)." } ?? "")\(call.member)"
        guard let worker = sources.worker(for: bus) else {
            throw DBusArgumentError(
                argument: "bus",
                problem: "no more buses can be opened (\(DBusSources.maxEffectBuses) besides the sources')")
        }
        guard worker.submit(.call(message, timeout: call.timeout, template: template, what: what)) else {
            throw DBusArgumentError(argument: "bus", problem: "too many calls are queued for the \(bus) bus")
        }
    }

    private func emit(_ effect: JSONValue) throws(DBusArgumentError) {
        let fields = try DBusEffectFields(effect, allowed: Self.emitKeys)
        let bus = try fields.bus()
        let path = try fields.name("path", DBusNames.isObjectPath, "an object path", required: true)!
        let interface = try fields.name("interface", DBusNames.isInterface, "an interface name", required: true)!
        let member = try fields.name("member", DBusNames.isMember, "a member name", required: true)!
        let destination = try fields.name("destination", DBusNames.isBusName, "a bus name", required: false)
        let arguments = try fields.arguments()
        guard let message = DBusMessage.signal(path: path, interface: interface, member: member),
            message.append(arguments)
        else {
            throw DBusArgumentError(argument: "args", problem: "libdbus could not build the message (out of memory)")
        }
        if let destination { message.setDestination(destination) }
        guard let worker = sources.worker(for: bus) else {
            throw DBusArgumentError(
                argument: "bus",
                problem: "no more buses can be opened (\(DBusSources.maxEffectBuses) besides the sources')")
        }
        guard worker.submit(.emit(message, what: "\(interface).\(member)")) else {
            throw DBusArgumentError(argument: "bus", problem: "too many signals are queued for the \(bus) bus")
        }
    }
}
