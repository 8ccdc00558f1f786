import MobiusCore
import MobiusJSON

/// A built-in JSON document store: the model is any JSON value, events set or delete the value at a JSON Pointer.
///
/// Events: `{"type":"set","path":"/a/b","value":V}` (creates missing objects on the way; `"-"` appends to an
/// array; `""` replaces the whole model) and `{"type":"delete","path":"/a/b"}` (no change when absent). Anything
/// else, a malformed pointer, or a path through a non-container is rejected with `InvalidEvent`. No effects.
/// Config: `{"update":{"builtin":"store"},"model":{...}}`.
public enum StoreApp {
    /// The store under its default name, `store`, starting from `{}`.
    public static func make() -> DaemonApp<JSONValue, JSONValue, JSONValue> {
        var app = DaemonApp.json(name: "store", model: [:], update: update, validate: validate)
        app.exampleEvent = ["type": "set", "path": "/greeting", "value": "hello"]
        return app
    }

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    @Sendable static func validate(_ event: JSONValue) throws {
        let type = event["type"]?.stringValue
        guard type == "set" || type == "delete" else {
            throw Invalid(
                description:
                    "the store takes {\"type\":\"set\",\"path\":P,\"value\":V} or {\"type\":\"delete\",\"path\":P}")
        }
        guard let text = event["path"]?.stringValue else {
            throw Invalid(description: "\"path\" must be a JSON Pointer string")
        }
        do {
            _ = try JSONPointer(text)
        } catch {
            throw Invalid(description: "\"path\": \(error)")
        }
        if type == "set" && event["value"] == nil { throw Invalid(description: "\"set\" needs a \"value\"") }
    }

    static func update(model: JSONValue, event: JSONValue) -> Next<JSONValue, JSONValue> {
        guard let text = event["path"]?.stringValue, let pointer = try? JSONPointer(text) else { return .noChange }
        let tokens = pointer.tokens[...]
        let result: JSONValue?
        switch event["type"]?.stringValue {
        case "set": result = setting(event["value"] ?? .null, at: tokens, in: model)
        case "delete": result = deleting(at: tokens, in: model)
        default: result = nil
        }
        guard let result, result != model else { return .noChange }
        return .next(result)
    }

    /// `document` with `value` at `tokens`, or `nil` when the path runs through a scalar or a bad array index.
    static func setting(_ value: JSONValue, at tokens: ArraySlice<String>, in document: JSONValue) -> JSONValue? {
        guard let token = tokens.first else { return value }
        let rest = tokens.dropFirst()
        switch document {
        case .object(var object):
            guard let child = setting(value, at: rest, in: object[token] ?? .object([:])) else { return nil }
            object[token] = child
            return .object(object)
        case .array(var array):
            if token == "-" {
                guard let child = setting(value, at: rest, in: .object([:])) else { return nil }
                array.append(child)
                return .array(array)
            }
            guard let index = arrayIndex(token), index < array.count,
                let child = setting(value, at: rest, in: array[index])
            else { return nil }
            array[index] = child
            return .array(array)
        case .null:
            return setting(value, at: tokens, in: .object([:]))
        default:
            return nil
        }
    }

    /// `document` without the value at `tokens` (unchanged when absent).
    static func deleting(at tokens: ArraySlice<String>, in document: JSONValue) -> JSONValue? {
        guard let token = tokens.first else { return .null }
        let rest = tokens.dropFirst()
        switch document {
        case .object(var object):
            guard let child = object[token] else { return document }
            if rest.isEmpty {
                _ = object.removeValue(forKey: token)
            } else {
                guard let updated = deleting(at: rest, in: child) else { return nil }
                object[token] = updated
            }
            return .object(object)
        case .array(var array):
            guard let index = arrayIndex(token), index < array.count else { return document }
            if rest.isEmpty {
                array.remove(at: index)
            } else {
                guard let updated = deleting(at: rest, in: array[index]) else { return nil }
                array[index] = updated
            }
            return .array(array)
        default:
            return document
        }
    }

    private static func arrayIndex(_ token: String) -> Int? {
        guard token == "0" || (token.first != "0" && token.allSatisfy(\.isNumber)) else { return nil }
        return Int(token)
    }
}
