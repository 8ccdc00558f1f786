import MobiusJSON

/// What the host said about itself and this plugin in `initialize` (docs/protocol.md 2.2).
public struct PluginConfiguration: Sendable, Hashable {
    /// The protocol version the host speaks (1).
    public var protocolVersion: Int
    /// The host's name (`mobiusd`).
    public var hostName: String
    /// The host's version.
    public var hostVersion: String
    /// The app the daemon runs.
    public var app: String
    /// This plugin's name in the daemon's config.
    public var plugin: String
    /// The plugin's `options` from the daemon's config: an object, `{}` when none were given.
    public var options: JSONObject

    /// Makes a configuration; plugins get theirs from the host, tests may build one.
    public init(
        protocolVersion: Int = 1, hostName: String = "mobiusd", hostVersion: String = "", app: String = "",
        plugin: String = "", options: JSONObject = [:]
    ) {
        self.protocolVersion = protocolVersion
        self.hostName = hostName
        self.hostVersion = hostVersion
        self.app = app
        self.plugin = plugin
        self.options = options
    }

    /// Reads `initialize` params; `nil` when they are not an object or `options` is present but not an object.
    init?(params: JSONValue?) {
        guard case .object(let params)? = params else { return nil }
        let options: JSONObject
        switch params["options"] {
        case nil, .null?: options = [:]
        case .object(let given)?: options = given
        default: return nil
        }
        self.init(
            protocolVersion: params["protocol"]?.int64Value.map { Int(clamping: $0) } ?? 0,
            hostName: params["host"]?["name"]?.stringValue ?? "",
            hostVersion: params["host"]?["version"]?.stringValue ?? "",
            app: params["app"]?.stringValue ?? "",
            plugin: params["plugin"]?.stringValue ?? "",
            options: options)
    }
}
