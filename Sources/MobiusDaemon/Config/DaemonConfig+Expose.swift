import MobiusJSON

extension DaemonConfig {
    /// The app's model as a D-Bus service (docs/dbus.md, "The model on D-Bus"), from `expose`.
    public struct Expose: Sendable, Equatable {
        /// `system`, `session` or a bus address, from `bus` (required).
        public var bus: String
        /// The well-known name the daemon owns, from `name` (required).
        public var name: String
        /// The object path of the app's object, from `path` (required).
        public var path: String
        /// Model values served as typed properties, from `properties`, in file order; default none.
        var properties: [ExposedProperty]
    }

    /// Most configured properties: each is looked up in the model after every pass that changes it, and a
    /// `PropertiesChanged` signal carrying all of them must stay well under the system bus's 32 MiB message limit.
    static let maxExposedProperties = 128

    /// The names `org.mobiusd.App1` has of its own.
    static let reservedPropertyNames: Set<String> = ["Model", "Seq", "Epoch"]

    static func expose(_ section: inout ConfigReader) throws(ConfigError) -> Expose {
        func required(_ key: String, _ valid: (String) -> Bool, _ what: String) throws(ConfigError) -> String {
            guard let value = try section.string(key) else {
                throw ConfigError(key: section.keyPath(key), "is required: \(what)")
            }
            guard valid(value) else {
                throw ConfigError(key: section.keyPath(key), "\"\(value.prefix(300))\" is not \(what)")
            }
            return value
        }
        let bus = try required(
            "bus", DBusNames.isBus,
            "\"system\", \"session\" or a unix: or tcp: D-Bus address such as \"unix:path=/run/dbus/system_bus_socket\""
        )
        let name = try required(
            "name", { DBusNames.isBusName($0) && !$0.hasPrefix(":") && $0 != "org.freedesktop.DBus" },
            "a well-known bus name to own (org.example.DoorLock; not a unique :1.N name, not org.freedesktop.DBus)")
        let path = try required("path", DBusNames.isObjectPath, "an object path (/org/example/DoorLock)")
        var properties: [ExposedProperty] = []
        if var list = try section.section("properties") {
            for key in list.object.keys {
                guard var property = try list.section(key) else { continue }
                properties.append(try exposedProperty(key, &property))
            }
            guard properties.count <= maxExposedProperties else {
                throw ConfigError(
                    key: list.path, "has \(properties.count) properties; at most \(maxExposedProperties)")
            }
            try list.rejectUnknownKeys()
        }
        try section.rejectUnknownKeys()
        return Expose(bus: bus, name: name, path: path, properties: properties)
    }

    private static func exposedProperty(
        _ name: String, _ section: inout ConfigReader
    ) throws(ConfigError)
        -> ExposedProperty
    {
        guard DBusNames.isMember(name) else {
            throw ConfigError(
                key: section.path,
                "is not a D-Bus property name (letters, digits and '_', not starting with a digit, at most 255)")
        }
        guard !reservedPropertyNames.contains(name) else {
            throw ConfigError(key: section.path, "is one of org.mobiusd.App1's own properties (Model, Seq, Epoch)")
        }
        guard let text = try section.string("path", expected: "must be a string, a JSON Pointer such as \"/locked\"")
        else {
            throw ConfigError(key: section.keyPath("path"), "is required: a JSON Pointer into the model (\"/locked\")")
        }
        let pointer: JSONPointer
        do {
            pointer = try JSONPointer(text)
        } catch {
            throw ConfigError(key: section.keyPath("path"), "is not a JSON Pointer: \(error)")
        }
        let types = "one D-Bus basic type: y n q i u x t d b s o g (s also takes any value, as its JSON text)"
        guard let signature = try section.string("type", expected: "must be \(types)") else {
            throw ConfigError(key: section.keyPath("type"), "is required: \(types)")
        }
        guard let type = try? DBusSignature.parseSingle(signature), type.isBasic, type != .unixFD else {
            let why = signature == "h" ? "unix file descriptors cannot be exposed" : "must be \(types)"
            throw ConfigError(key: section.keyPath("type"), "\"\(signature.prefix(40))\": \(why)")
        }
        try section.rejectUnknownKeys()
        return ExposedProperty(name: name, pointer: pointer, type: type)
    }
}
