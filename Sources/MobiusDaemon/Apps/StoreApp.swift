import MobiusCore
import MobiusJSON

/// A built-in JSON document store: the model is any JSON value, events set or delete the value at a JSON Pointer.
///
/// Events: `{"type":"set","path":"/a/b","value":V}` (creates missing objects on the way; `"-"` appends to an
/// array; `""` replaces the whole model) and `{"type":"delete","path":"/a/b"}` (no change when absent). Anything
/// else, a malformed pointer (or one of more than 512 tokens), a `set` through a scalar or to an array index out
/// of range, and a `set` whose model would nest deeper than 512 levels are rejected with `InvalidEvent`. No
/// effects. Config: `{"update":{"builtin":"store"},"model":{...}}`.
///
/// The store keeps its model within the nesting limit itself: a value set at a path of k tokens nests at most k
/// plus its own depth, so checking that sum per event bounds the model without walking it.
public enum StoreApp {
    /// The store under its default name, `store`, starting from `{}`.
    public static func make() -> DaemonApp<JSONValue, JSONValue, JSONValue> {
        var app = DaemonApp.json(
            name: "store", model: [:], update: update, validate: validate, validateModel: validateModel)
        app.exampleEvent = ["type": "set", "path": "/greeting", "value": "hello"]
        app.modelDepth = .boundedByApp
        return app
    }

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// The deepest model the store keeps (the parser's limit).
    static let maxDepth = JSONParser.defaultMaxDepth

    @Sendable static func validateModel(_ model: JSONValue) throws {
        // A starting model comes from the config file, parsed with the same limit; checked anyway, cheaply.
        if model.nests(deeperThan: maxDepth) { throw Invalid(description: "nests deeper than \(maxDepth) levels") }
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

    static func update(model: JSONValue, event: JSONValue) throws -> Next<JSONValue, JSONValue> {
        // `validate` has checked the event's shape before it was queued.
        guard let text = event["path"]?.stringValue, let pointer = try? JSONPointer(text) else {
            throw EventRejection("\"path\" must be a JSON Pointer string")
        }
        let tokens = pointer.tokens[...]
        let result: JSONValue
        switch event["type"]?.stringValue {
        case "set":
            let value = event["value"] ?? .null
            if value.nests(deeperThan: maxDepth - tokens.count) {
                throw EventRejection(
                    "the model would nest deeper than \(maxDepth) levels (a value \(value.nestingDepth) deep at a "
                        + "path of \(tokens.count) tokens)")
            }
            guard let updated = setting(value, at: tokens, in: model) else {
                throw EventRejection("cannot set \(text): the path runs through a scalar or past the end of an array")
            }
            result = updated
        case "delete":
            result = deleting(at: tokens, in: model)
        default:
            throw EventRejection("the store takes \"set\" and \"delete\" events")
        }
        guard result != model else { return .noChange }
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

    /// `document` without the value at `tokens` (unchanged when absent, including a path through a scalar).
    static func deleting(at tokens: ArraySlice<String>, in document: JSONValue) -> JSONValue {
        guard let token = tokens.first else { return .null }
        let rest = tokens.dropFirst()
        switch document {
        case .object(var object):
            guard let child = object[token] else { return document }
            if rest.isEmpty {
                _ = object.removeValue(forKey: token)
            } else {
                object[token] = deleting(at: rest, in: child)
            }
            return .object(object)
        case .array(var array):
            guard let index = arrayIndex(token), index < array.count else { return document }
            if rest.isEmpty {
                array.remove(at: index)
            } else {
                array[index] = deleting(at: rest, in: array[index])
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
