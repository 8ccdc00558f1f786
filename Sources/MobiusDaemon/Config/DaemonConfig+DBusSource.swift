import MobiusJSON

extension DaemonConfig {
    /// One D-Bus event source (docs/protocol.md 3; docs/dbus.md).
    public struct DBusSource: Sendable {
        /// `system`, `session` or a bus address, from `bus` (required).
        public var bus: String
        /// The `type` of the events this source produces, from `type` (required).
        public var type: String
        /// The name `status` reports it under, from `name`; default the type (with `-2`, `-3`… when several
        /// sources share one).
        public var name: String
        /// The match rule's fields (`sender`, `path`, `path_namespace`, `interface`, `member`, `arg0`…), from
        /// `match`, in file order; default none.
        public var match: [(String, String)]
        /// An object merged over the fields of each event produced, from `event`; default `nil`.
        public var event: JSONValue?
        /// The checked rule.
        var rule: DBusMatchRule
        /// The method call made at start and after each reconnect, from `initialRead`; default none.
        var initialRead: DBusMethodCall?
        /// An object merged over the initial read's event, from `initialRead.event`.
        var initialReadEvent: JSONValue?
        /// How much of one message is converted, from `maxValues` and `maxStringBytes`.
        var limits: DBusReadLimits
    }

    static func dbusSources(_ items: [JSONValue]) throws(ConfigError) -> [DBusSource] {
        var sources: [DBusSource] = []
        var names: Set<String> = []
        for (index, item) in items.enumerated() {
            var section = try ConfigReader(item, path: "dbus[\(index)]")
            var source = try dbusSource(&section)
            if let name = try section.string("name") {
                guard isValidAppName(name), !names.contains(name) else {
                    throw ConfigError(
                        key: section.keyPath("name"),
                        "must be 1-64 letters, digits, '-', '_' or '.', and not another source's name")
                }
                source.name = name
            } else {
                var suffix = 2
                while names.contains(source.name) {
                    source.name = "\(source.type)-\(suffix)"
                    suffix += 1
                }
            }
            names.insert(source.name)
            try section.rejectUnknownKeys()
            sources.append(source)
        }
        return sources
    }

    private static func dbusSource(_ section: inout ConfigReader) throws(ConfigError) -> DBusSource {
        guard let bus = try section.string("bus") else {
            throw ConfigError(key: section.keyPath("bus"), "is required: \"system\", \"session\" or an address")
        }
        guard DBusNames.isBus(bus) else {
            throw ConfigError(
                key: section.keyPath("bus"),
                "must be \"system\", \"session\" or a unix: or tcp: D-Bus address such as "
                    + "\"unix:path=/run/dbus/system_bus_socket\"")
        }
        guard let type = try section.string("type"), !type.isEmpty else {
            throw ConfigError(key: section.keyPath("type"), "is required: the event type to produce")
        }
        var match: [(String, String)] = []
        if var matchSection = try section.section("match") {
            for key in matchSection.object.keys {
                guard let value = try matchSection.string(key) else { continue }
                match.append((key, value))
            }
        }
        let rule = try DBusMatchRule(fields: match) { section.keyPath("match.\($0)") }
        let event = section.value("event")
        if let event, case .object = event {
        } else if case .some = event {
            throw ConfigError(key: section.keyPath("event"), "must be a JSON object merged into each event")
        }
        var source = DBusSource(
            bus: bus, type: type, name: type, match: match, event: event, rule: rule, initialRead: nil,
            initialReadEvent: nil, limits: DBusReadLimits())
        source.limits.maxValues = try section.integer("maxValues", range: 1...(1 << 24)) ?? source.limits.maxValues
        source.limits.maxStringBytes =
            try section.integer("maxStringBytes", range: 1...(1 << 28)) ?? source.limits.maxStringBytes
        if let (key, message) = source.limits.problem {
            throw ConfigError(key: section.keyPath(key), message)
        }
        if var read = try section.section("initialRead") {
            source.initialRead = try methodCall(&read)
            if let readEvent = read.value("event") {
                guard case .object = readEvent else {
                    throw ConfigError(key: read.keyPath("event"), "must be a JSON object merged into the read's event")
                }
                source.initialReadEvent = readEvent
            }
            try read.rejectUnknownKeys()
        }
        return source
    }

    /// `destination`, `path`, `interface` (optional), `member`, `signature` and `args` (optional, together),
    /// `timeout` (seconds, default 5).
    private static func methodCall(_ section: inout ConfigReader) throws(ConfigError) -> DBusMethodCall {
        func required(_ key: String, _ valid: (String) -> Bool, _ what: String) throws(ConfigError) -> String {
            guard let value = try section.string(key) else {
                throw ConfigError(key: section.keyPath(key), "is required: \(what)")
            }
            guard valid(value) else { throw ConfigError(key: section.keyPath(key), "\"\(value)\" is not \(what)") }
            return value
        }
        let destination = try required("destination", DBusNames.isBusName, "a bus name (org.example.Service)")
        let path = try required("path", DBusNames.isObjectPath, "an object path (/org/example/Object)")
        let member = try required("member", DBusNames.isMember, "a method name (GetAll)")
        var interface: String?
        if case .some = section.value("interface") {
            interface = try required("interface", DBusNames.isInterface, "an interface name (org.example.Iface)")
        }
        let signature = try section.string("signature") ?? ""
        let args = section.value("args") ?? .array([])
        guard case .array(let values) = args else {
            throw ConfigError(key: section.keyPath("args"), "must be an array of the call's arguments")
        }
        let arguments: [DBusArgument]
        do {
            arguments = try DBusArgument.list(values, signature: signature)
        } catch {
            let key = error.argument == "signature" ? "signature" : error.argument
            throw ConfigError(key: section.keyPath(key), error.problem)
        }
        let timeout = try section.seconds("timeout", range: DBusMethodCall.timeoutRange) ?? 5
        return DBusMethodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments,
            timeout: timeout)
    }
}
