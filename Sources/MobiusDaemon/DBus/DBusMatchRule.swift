/// A source's match rule (docs/protocol.md 3): the fields it was configured with, the rule text given to the bus
/// (`AddMatch`), and the same test applied again to each message the connection receives, because a connection's
/// filter sees every message, including those other sources' rules asked for and the bus's own (NameAcquired).
struct DBusMatchRule: Sendable, Equatable {
    var sender: String?
    var path: String?
    var pathNamespace: String?
    var interface: String?
    var member: String?
    /// `argN`: the N-th argument must be a string equal to the value.
    var arguments: [Int: String] = [:]

    /// The keys a `match` object may have besides `arg0` … `arg63`.
    static let keys = ["sender", "path", "path_namespace", "interface", "member"]

    /// Builds a rule from config fields, checking each value; `key(field)` names the config key in errors.
    init(fields: [(String, String)], key: (String) -> String) throws(ConfigError) {
        for (field, value) in fields {
            guard !value.utf8.contains(0) else { throw ConfigError(key: key(field), "must not contain a NUL byte") }
            switch field {
            case "sender":
                guard DBusNames.isBusName(value) else {
                    throw ConfigError(key: key(field), "\"\(value)\" is not a bus name (org.example.Name or :1.42)")
                }
                sender = value
            case "path", "path_namespace":
                guard DBusNames.isObjectPath(value) else {
                    throw ConfigError(key: key(field), "\"\(value)\" is not an object path (/org/example/Object)")
                }
                if field == "path" { path = value } else { pathNamespace = value }
            case "interface":
                guard DBusNames.isInterface(value) else {
                    throw ConfigError(key: key(field), "\"\(value)\" is not an interface name (org.example.Iface)")
                }
                interface = value
            case "member":
                guard DBusNames.isMember(value) else {
                    throw ConfigError(key: key(field), "\"\(value)\" is not a member name (Changed)")
                }
                member = value
            default:
                guard field.hasPrefix("arg"), let index = Int(field.dropFirst(3)), (0...63).contains(index),
                    String(index) == field.dropFirst(3)
                else {
                    throw ConfigError(
                        key: key(field),
                        "unknown match key (use sender, path, path_namespace, interface, member, arg0…arg63)")
                }
                arguments[index] = value
            }
        }
        if path != nil && pathNamespace != nil {
            throw ConfigError(key: key("path_namespace"), "cannot be combined with path")
        }
    }

    /// A rule with no fields: every signal.
    init() {}

    /// The rule as the bus takes it: `type='signal',interface='…',…`, values quoted (an apostrophe is written
    /// outside the quotes, escaped).
    var text: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            parts.append("\(key)=" + Self.quote(value))
        }
        add("sender", sender)
        add("path", path)
        add("path_namespace", pathNamespace)
        add("interface", interface)
        add("member", member)
        for index in arguments.keys.sorted() { add("arg\(index)", arguments[index]) }
        return parts.joined(separator: ",")
    }

    static func quote(_ value: String) -> String {
        "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// Whether a received signal matches. `senderOwner` is the unique name that currently owns a well-known
    /// `sender` (`nil` when it has none or is not known yet: then only messages from the name itself match).
    func matches(_ header: DBusSignalHeader, senderOwner: String?) -> Bool {
        if let sender {
            guard let actual = header.sender else { return false }
            if actual != sender && actual != senderOwner { return false }
        }
        if let path, header.path != path { return false }
        if let pathNamespace {
            guard let actual = header.path else { return false }
            if pathNamespace != "/" && actual != pathNamespace && !actual.hasPrefix(pathNamespace + "/") {
                return false
            }
        }
        if let interface, header.interface != interface { return false }
        if let member, header.member != member { return false }
        for (index, value) in arguments {
            guard index < header.stringArguments.count, header.stringArguments[index] == value else { return false }
        }
        return true
    }

    /// Whether `sender` is a well-known name whose owner must be tracked to re-check messages.
    var wellKnownSender: String? {
        guard let sender, !sender.hasPrefix(":") else { return nil }
        return sender
    }
}
