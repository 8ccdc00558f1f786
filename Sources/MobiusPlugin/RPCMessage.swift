import MobiusJSON

/// JSON-RPC 2.0 messages a plugin sends.
enum RPCMessage {
    /// Standard JSON-RPC error codes.
    static let parseError = -32700
    static let invalidRequest = -32600
    static let methodNotFound = -32601
    static let invalidParams = -32602
    /// Not initialized yet (the code LSP uses for the same condition).
    static let notInitialized = -32002

    /// A result line's JSON (without its newline), written directly: every effect and update ends in one, so no
    /// object is built around the result.
    static func resultLine(id: JSONValue, _ result: JSONValue) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(64)
        line.append(contentsOf: #"{"jsonrpc":"2.0","id":"#.utf8)
        id.encode(into: &line)
        line.append(contentsOf: #","result":"#.utf8)
        result.encode(into: &line)
        line.append(UInt8(ascii: "}"))
        return line
    }

    static func error(id: JSONValue, code: Int, message: String) -> JSONValue {
        .object(["jsonrpc": "2.0", "id": id, "error": errorObject(code: code, message: message)])
    }

    static func errorObject(code: Int, message: String) -> JSONValue {
        .object(["code": .number(JSONNumber(code)), "message": .string(message)])
    }

    static func notification(_ method: String, _ params: JSONValue) -> JSONValue {
        .object(["jsonrpc": "2.0", "method": .string(method), "params": params])
    }

    /// The code and message for a thrown error: a ``PluginError``'s own, else the default code and a description.
    static func describe(_ error: any Error) -> (code: Int, message: String) {
        if let error = error as? PluginError { return (error.code, error.message) }
        if error is CancellationError { return (PluginError.defaultCode, "cancelled") }
        return (PluginError.defaultCode, String(describing: error))
    }
}
