import MobiusJSON

/// One JSON-RPC 2.0 message from a plugin, classified (docs/protocol.md 2.2-2.5).
enum PluginMessage {
    /// A notification: `method` and `params` (an object, or `{}` when absent).
    case notification(method: String, params: JSONValue)
    /// A successful response to the host's request `id`.
    case result(id: Int64, JSONValue)
    /// An error response to the host's request `id`.
    case error(id: Int64, code: Int64?, message: String)

    /// Why a line is not a message the host accepts.
    struct Violation: Error, CustomStringConvertible {
        let description: String
    }

    /// Classifies a parsed line.
    /// - Throws: `Violation` for anything but a JSON-RPC 2.0 notification or response (requests from the plugin
    ///   are not part of the protocol).
    init(_ value: JSONValue) throws(Violation) {
        guard case .object(let object) = value else { throw Violation(description: "not a JSON object") }
        guard object["jsonrpc"]?.stringValue == "2.0" else {
            throw Violation(description: "no \"jsonrpc\":\"2.0\" member")
        }
        if let method = object["method"] {
            guard let name = method.stringValue else { throw Violation(description: "\"method\" is not a string") }
            guard object["id"] == nil else {
                throw Violation(description: "a request from the plugin (\"\(name)\"); plugins send only notifications")
            }
            let params = object["params"] ?? .object([:])
            guard case .object = params else { throw Violation(description: "\"params\" is not an object") }
            self = .notification(method: name, params: params)
            return
        }
        guard let id = object["id"]?.int64Value else {
            throw Violation(description: "neither a notification nor a response with an integer \"id\"")
        }
        if let result = object["result"] {
            guard object["error"] == nil else { throw Violation(description: "both \"result\" and \"error\"") }
            self = .result(id: id, result)
        } else if let error = object["error"] {
            let message = error["message"]?.stringValue ?? String(decoding: error.encoded().prefix(256), as: UTF8.self)
            self = .error(id: id, code: error["code"]?.int64Value, message: message)
        } else {
            throw Violation(description: "a response with neither \"result\" nor \"error\"")
        }
    }

    /// A request line from the host.
    static func request(id: Int64, method: String, params: JSONValue) -> [UInt8] {
        request(id: id, method: method, encodedParams: params.encoded())
    }

    /// A request line from the host around `params` already encoded (one compact JSON value).
    static func request(id: Int64, method: String, encodedParams params: [UInt8]) -> [UInt8] {
        var line = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
        line.reserveCapacity(params.count + method.utf8.count + 48)
        JSONNumber(id).encode(into: &line)
        line.append(contentsOf: #","method":"#.utf8)
        JSONValue.string(method).encode(into: &line)
        line.append(contentsOf: #","params":"#.utf8)
        line.append(contentsOf: params)
        line.append(contentsOf: "}\n".utf8)
        return line
    }

    /// Appends an `effect` request line to `buffer` (a plugin's stdin queue), written directly: the hot path of every
    /// effect, so no object is built around the effect and no line array comes in between.
    static func appendEffectRequest(id: Int64, effect: JSONValue, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: #"{"jsonrpc":"2.0","id":"#.utf8)
        JSONNumber(id).encode(into: &buffer)
        buffer.append(contentsOf: #","method":"effect","params":{"effect":"#.utf8)
        effect.encode(into: &buffer)
        buffer.append(contentsOf: "}}\n".utf8)
    }

    /// A notification line from the host.
    static func notification(method: String, params: JSONValue? = nil) -> [UInt8] {
        var members: [(String, JSONValue)] = [("jsonrpc", "2.0"), ("method", .string(method))]
        if let params { members.append(("params", params)) }
        return JSONLine.object(members)
    }
}
