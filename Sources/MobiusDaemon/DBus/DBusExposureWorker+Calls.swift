import MobiusJSON

extension DBusExposureWorker {
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let introspectableInterface = "org.freedesktop.DBus.Introspectable"

    /// The filter: answers every method call (libdbus has answered `org.freedesktop.DBus.Peer` before it), and
    /// follows the bus's `NameAcquired` and `NameLost` for the name.
    func handle(_ message: DBusMessage) -> Bool {
        switch message.kind {
        case .methodCall:
            respond(to: message)
            return true
        case .signal:
            noteNameSignal(message)
            return false
        case .methodReturn, .error, .other:
            return false
        }
    }

    private func noteNameSignal(_ message: DBusMessage) {
        guard message.sender == "org.freedesktop.DBus", message.interface == "org.freedesktop.DBus",
            message.member == "NameAcquired" || message.member == "NameLost",
            message.header(stringArguments: 1).stringArguments.first == config.name
        else { return }
        let owns = message.member == "NameAcquired"
        // RequestName's answer has told already; NameAcquired follows it.
        guard owns != ownsName else { return }
        ownsName = owns
        if let connection { noteOwnership(connection) }
    }

    /// Sends `reply` unless the caller asked for none.
    private func send(_ reply: DBusMessage?, to call: DBusMessage) {
        guard !call.expectsNoReply, let reply, let connection else { return }
        _ = connection.send(reply)
    }

    private func fail(_ call: DBusMessage, _ failure: DBusFailure) {
        send(call.errorReply(failure), to: call)
    }

    private func reply(_ call: DBusMessage, _ arguments: [DBusArgument]) {
        guard let reply = call.methodReturn(), reply.append(arguments) else { return }
        send(reply, to: call)
    }

    private func respond(to call: DBusMessage) {
        let path = call.path ?? ""
        let interface = call.interface
        let member = call.member ?? ""
        guard path == config.path else {
            if let child = DBusIntrospection.child(of: path, toward: config.path),
                interface == nil || interface == Self.introspectableInterface, member == "Introspect"
            {
                reply(call, [.string(DBusIntrospection.ancestor(child: child))])
            } else {
                fail(call, .standard("UnknownObject", "no object at \(path)"))
            }
            return
        }
        let signature = call.signature
        func takes(_ wanted: String) -> Bool {
            guard signature == wanted else {
                fail(call, .invalidArgs("\(member) takes (\(wanted)), not (\(signature))"))
                return false
            }
            return true
        }
        func on(_ wanted: String) -> Bool { interface == nil || interface == wanted }
        switch member {
        case "Introspect" where on(Self.introspectableInterface):
            if takes("") { reply(call, [.string(introspection)]) }
        // Without an interface, `Get` is the Properties one when it has two arguments.
        case "Get" where interface == Self.propertiesInterface || (interface == nil && signature == "ss"):
            if takes("ss") { getProperty(call) }
        case "GetAll" where on(Self.propertiesInterface):
            if takes("s") { getAllProperties(call) }
        case "Set" where on(Self.propertiesInterface):
            let why = "the properties of \(Self.interface) are read-only; change the model with Send"
            fail(call, .standard("PropertyReadOnly", why))
        case "Get" where on(Self.interface):
            if takes("s") { getValue(call) }
        case "Send" where on(Self.interface):
            if takes("s") { accept(call) }
        default:
            if let interface,
                ![Self.interface, Self.propertiesInterface, Self.introspectableInterface].contains(interface)
            {
                fail(call, .standard("UnknownInterface", "no interface \(interface) at \(path)"))
            } else {
                fail(
                    call,
                    .standard("UnknownMethod", "no method \(interface.map { "\($0)." } ?? "")\(member) at \(path)"))
            }
        }
    }

    // MARK: - Reads

    /// The two (or one) string arguments of a read; reads take short names, so anything long is refused.
    private func strings(_ call: DBusMessage) -> [String]? {
        guard let arguments = call.stringArguments(maxBytes: 4096) else { return nil }
        var strings: [String] = []
        for argument in arguments {
            guard case .text(let bytes) = argument else {
                fail(call, .invalidArgs("an argument is longer than 4096 bytes"))
                return nil
            }
            strings.append(String(decoding: bytes, as: UTF8.self))
        }
        return strings
    }

    private func countRead() {
        status.update { $0.reads += 1 }
    }

    /// `Properties.Get(interface, name)`.
    private func getProperty(_ call: DBusMessage) {
        guard let arguments = strings(call), arguments.count == 2 else { return }
        guard arguments[0].isEmpty || arguments[0] == Self.interface else {
            fail(call, unknownInterface(arguments[0]))
            return
        }
        countRead()
        switch property(named: arguments[1]) {
        case .success(let (type, value)): reply(call, [.variant(type, value)])
        case .failure(let failure): fail(call, failure)
        }
    }

    /// `Properties.GetAll(interface)`: `Model` is left out when its text is over the reply limit (`Get` says so).
    private func getAllProperties(_ call: DBusMessage) {
        guard let arguments = strings(call), arguments.count == 1 else { return }
        let interface = arguments[0]
        guard interface.isEmpty || interface == Self.interface else {
            if [Self.propertiesInterface, Self.introspectableInterface, "org.freedesktop.DBus.Peer"].contains(interface)
            {
                reply(call, [.dictionary(key: .string, value: .variant, [])])
            } else {
                fail(call, unknownInterface(interface))
            }
            return
        }
        countRead()
        var entries: [(DBusArgument, DBusArgument)] = []
        for name in ["Model", "Seq", "Epoch"] + config.properties.map(\.name) {
            guard case .success(let (type, value)) = property(named: name) else { continue }
            entries.append((.string(name), .variant(type, value)))
        }
        reply(call, [.dictionary(key: .string, value: .variant, entries)])
    }

    private func unknownInterface(_ interface: String) -> DBusFailure {
        .standard("UnknownInterface", "no interface \"\(interface.prefix(255))\" with properties at \(config.path)")
    }

    /// A property's type and value.
    private func property(named name: String) -> Result<(DBusType, DBusArgument), DBusFailure> {
        switch name {
        case "Model":
            return modelJSONText(at: JSONPointer(tokens: [])).map { (.string, .string($0)) }
        case "Seq":
            return .success((.uint64, .uint64(committed?.seq ?? 0)))
        case "Epoch":
            return .success((.string, .string(epoch)))
        default:
            guard let index = config.properties.firstIndex(where: { $0.name == name }) else {
                return .failure(
                    .standard("UnknownProperty", "no property \"\(name.prefix(255))\" on \(Self.interface)"))
            }
            return .success((config.properties[index].type, values.values[index]))
        }
    }

    /// `org.mobiusd.App1.Get(pointer)`: the JSON text of the model's value there, `null` when absent (as `model`
    /// with `path` on the socket).
    private func getValue(_ call: DBusMessage) {
        guard let arguments = call.stringArguments(maxBytes: maxEventBytes), arguments.count == 1 else { return }
        guard case .text(let bytes) = arguments[0] else {
            fail(call, Self.error(.invalidArgument, "the pointer is longer than \(maxEventBytes) bytes"))
            return
        }
        let pointer: JSONPointer
        do {
            pointer = try JSONPointer(String(decoding: bytes, as: UTF8.self))
        } catch {
            fail(call, Self.error(.invalidArgument, "not a JSON Pointer: \(error)"))
            return
        }
        countRead()
        switch modelJSONText(at: pointer) {
        case .success(let text): reply(call, [.string(text)])
        case .failure(let failure): fail(call, failure)
        }
    }

    /// The compact JSON text of the model's value at `pointer` (the whole model's is kept until the model changes),
    /// refused when it is over `maxReplyBytes`.
    private func modelJSONText(at pointer: JSONPointer) -> Result<String, DBusFailure> {
        guard let committed else { return .failure(Self.error(.unavailable, "the loop has not started")) }
        let text: [UInt8]
        if pointer.tokens.isEmpty {
            if modelText == nil { modelText = committed.model.encoded() }
            text = modelText ?? []
        } else {
            text = (pointer.value(in: committed.model) ?? .null).encoded()
        }
        guard text.count <= maxReplyBytes else {
            return .failure(
                .standard(
                    "LimitsExceeded",
                    "the JSON text is \(text.count) bytes, over the \(maxReplyBytes) bytes a reply carries "
                        + "(socket.maxOutputBytes, at most 32 MiB less 64 KiB); read a part of it with Get(pointer)"))
        }
        return .success(String(decoding: text, as: UTF8.self))
    }

    /// `org.mobiusd.Error.<Code>`, the socket's error codes as D-Bus error names.
    static func error(_ code: ErrorCode, _ message: String) -> DBusFailure {
        DBusFailure(name: "org.mobiusd.Error." + code.rawValue, message: message)
    }
}
