import MobiusJSON

@testable import MobiusDaemon

/// The D-Bus value mapper (docs/dbus.md): messages of every type signature built with libdbus, then read as a signal
/// or a reply is read; and `mobiusd.dbus.call` effects checked and built as the daemon builds them.
///
/// The first byte picks the mode. Typed: the input is read as a signature (types drawn from it, nested up to the
/// limits of D-Bus) and values for it; the message is built with `DBusMessage.append` and read with `arguments`.
/// Effect: the input is a JSON effect, checked by `DBusEffectFields` and built by `DBusMethodCall` and as a signal.
///
/// Oracles: nothing traps, and libdbus takes every name, signature, path and string our checks let through (it aborts
/// the process on one it deems invalid, which is the daemon dying on an app's effect); every message reads back as the
/// mapping of docs/dbus.md says, computed here from the typed values; the limits refuse a message exactly when its
/// values or string bytes exceed them, and the cost is what they count; the JSON of a typed value, typed again by its
/// signature as an effect's argument, builds a message that reads back to the same JSON.
enum DBusFuzz {
    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        if input.bool() {
            typedMessage(&input)
        } else {
            effect(input.rest())
        }
    }

    // MARK: - Typed messages

    static func typedMessage(_ input: inout FuzzInput) {
        var generator = DBusValueGenerator(input: input)
        var arguments: [DBusArgument] = []
        var types: [DBusType] = []
        for _ in 0..<generator.input.int(0...4) {
            guard let type = generator.type(signatureRoom: 255 - types.map(\.signature.utf8.count).reduce(0, +))
            else { break }
            types.append(type)
            arguments.append(generator.value(of: type, depth: 0))
        }
        let limits =
            generator.input.bool()
            ? DBusReadLimits()
            : DBusReadLimits(maxValues: generator.input.int(1...512), maxStringBytes: generator.input.int(1...1024))
        let message = signal()
        check(message.append(arguments), "libdbus refused \(arguments)")
        checkReading(message, arguments, limits: limits)
        for (index, (argument, type)) in zip(arguments, types).enumerated() {
            let json = DBusReference.json(argument)
            let retyped: DBusArgument
            do {
                retyped = try DBusArgument(json: json, type: type, at: "args[\(index)]", depth: 0)
            } catch {
                // NaN and infinities become null, which fits no type; a variant's JSON may be typed deeper.
                check(
                    DBusReference.hasNonFinite(argument) || type.signature.contains("v"),
                    "\(json) does not fit its own type \(type.signature): \(error)")
                continue
            }
            let again = signal()
            check(again.append([retyped]), "libdbus refused \(retyped)")
            let read = try? again.arguments(limits: DBusReadLimits())
            check(
                read?.values == [json], "\(type.signature): \(json) reads back as \(String(describing: read?.values))")
        }
    }

    static func signal() -> DBusMessage {
        guard
            let message = DBusMessage.signal(path: "/org/mobiusd/Fuzz", interface: "org.mobiusd.Fuzz", member: "Values")
        else { fatalError("libdbus is out of memory") }
        return message
    }

    /// The message reads as the reference mapping of its arguments, within the limits or refused by them.
    static func checkReading(_ message: DBusMessage, _ arguments: [DBusArgument], limits: DBusReadLimits) {
        let values = arguments.map(DBusReference.valueCount).reduce(0, +)
        let stringBytes = arguments.map(DBusReference.stringBytes).reduce(0, +)
        let read = Result { () throws(DBusMessage.ReadProblem) in try message.arguments(limits: limits) }
        switch read {
        case .success(let (json, cost)):
            check(values <= limits.maxValues && stringBytes <= limits.maxStringBytes, "read past the limits")
            check(
                json == arguments.map(DBusReference.json), "read \(json), expected \(arguments.map(DBusReference.json))"
            )
            check(
                cost == values * DBusReadLimits.valueCost + stringBytes,
                "cost \(cost) for \(values) values, \(stringBytes) bytes")
        case .failure(let problem):
            check(
                values > limits.maxValues || stringBytes > limits.maxStringBytes,
                "refused within the limits: \(problem)")
        }
    }

    // MARK: - Effects

    /// A `mobiusd.dbus.call` effect as `DBusEffects` checks and builds it, and the same fields as a signal.
    static func effect(_ bytes: [UInt8]) {
        guard let effect = try? JSONValue(parsing: bytes) else { return }
        do {
            let fields = try DBusEffectFields(effect, allowed: DBusEffects.callKeys)
            let destination = try fields.name("destination", DBusNames.isBusName, "a bus name", required: true)!
            let path = try fields.name("path", DBusNames.isObjectPath, "an object path", required: true)!
            let interface = try fields.name("interface", DBusNames.isInterface, "an interface name", required: false)
            let member = try fields.name("member", DBusNames.isMember, "a member name", required: true)!
            let arguments = try fields.arguments()
            if let signature = effect["signature"]?.stringValue {
                let types = try? DBusSignature.parse(signature)
                check(types?.map(\.signature).joined() == signature, "signature \(signature) does not read back")
            }
            let call = DBusMethodCall(
                destination: destination, path: path, interface: interface, member: member, arguments: arguments,
                timeout: 5)
            guard let message = call.message() else {
                check(false, "libdbus refused the call \(effect)")
                return
            }
            checkReading(message, arguments, limits: DBusReadLimits())
            if let interface {
                guard let emitted = DBusMessage.signal(path: path, interface: interface, member: member),
                    emitted.append(arguments)
                else {
                    check(false, "libdbus refused the signal \(effect)")
                    return
                }
                emitted.setDestination(destination)
            }
        } catch {
            let place = error.argument
            check(
                place == "effect" || place.hasPrefix("args") || effect.objectValue?.keys.contains(place) == true
                    || ["destination", "path", "member", "signature"].contains(place),
                "the error names no member: \(error)")
        }
    }
}
