import MobiusJSON

/// Command arguments of docs/protocol.md 1.2, parsed and checked.
enum RequestArguments {
    /// `{"path":"/json/pointer"}` or nothing.
    static func pathArgument(_ argument: ArraySlice<UInt8>) -> Result<JSONPointer?, ArgumentProblem> {
        guard !argument.isEmpty else { return .success(nil) }
        guard let value = try? JSONWire.parse(argument), case .object(let object) = value else {
            return .failure(ArgumentProblem("the argument must be a JSON object like {\"path\":\"/a/b\"}"))
        }
        if let unknown = object.keys.first(where: { $0 != "path" }) {
            return .failure(ArgumentProblem("unknown key \"\(unknown)\" (only \"path\")"))
        }
        return path(in: object)
    }

    /// `model`'s argument: `{"path":"/json/pointer","at":N}`, both optional; `at` an integer ≥ 0, the seq whose model
    /// is asked for.
    static func modelArgument(
        _ argument: ArraySlice<UInt8>
    ) -> Result<(path: JSONPointer?, at: UInt64?), ArgumentProblem> {
        guard !argument.isEmpty else { return .success((nil, nil)) }
        guard let value = try? JSONWire.parse(argument), case .object(let object) = value else {
            return .failure(ArgumentProblem("the argument must be a JSON object like {\"path\":\"/a/b\",\"at\":42}"))
        }
        if let unknown = object.keys.first(where: { $0 != "path" && $0 != "at" }) {
            return .failure(ArgumentProblem("unknown key \"\(unknown)\" (only \"path\" and \"at\")"))
        }
        var at: UInt64?
        if let member = object["at"] {
            guard let number = member.int64Value, number >= 0 else {
                return .failure(ArgumentProblem("\"at\" must be an integer ≥ 0, a seq"))
            }
            at = UInt64(number)
        }
        return path(in: object).map { ($0, at) }
    }

    /// The `path` member of a command's argument object, as a JSON Pointer; `nil` when absent.
    private static func path(in object: JSONObject) -> Result<JSONPointer?, ArgumentProblem> {
        guard let pathValue = object["path"] else { return .success(nil) }
        guard case .string(let text) = pathValue else {
            return .failure(ArgumentProblem("\"path\" must be a string (a JSON Pointer)"))
        }
        do {
            return .success(try JSONPointer(text))
        } catch {
            return .failure(ArgumentProblem("\"path\" is not a JSON Pointer: \(error)"))
        }
    }

    /// `log`'s argument: an object with `since` and `limit` (integers ≥ 0), `follow` and `models` (booleans), all
    /// optional.
    static func logArgument(_ argument: ArraySlice<UInt8>) -> Result<LogRequest, ArgumentProblem> {
        var request = LogRequest()
        guard !argument.isEmpty else { return .success(request) }
        guard let value = try? JSONWire.parse(argument), case .object(let object) = value else {
            return .failure(ArgumentProblem("the argument must be a JSON object like {\"since\":0,\"follow\":true}"))
        }
        for (key, member) in object.members {
            switch key {
            case "since", "limit":
                guard let number = member.int64Value, number >= 0 else {
                    return .failure(ArgumentProblem("\"\(key)\" must be an integer ≥ 0"))
                }
                if key == "since" { request.since = UInt64(number) } else { request.limit = UInt64(number) }
            case "follow", "models":
                guard let flag = member.boolValue else {
                    return .failure(ArgumentProblem("\"\(key)\" must be true or false"))
                }
                if key == "follow" { request.follow = flag } else { request.models = flag }
            default:
                return .failure(ArgumentProblem("unknown key \"\(key)\""))
            }
        }
        return .success(request)
    }

    /// `metrics`'s argument: nothing (OpenMetrics) or `{"format":"openmetrics"|"prometheus"}`.
    static func metricsFormat(_ argument: ArraySlice<UInt8>) -> Result<MetricsFormat, ArgumentProblem> {
        guard !argument.isEmpty else { return .success(.openMetrics) }
        let names = MetricsFormat.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
        guard let value = try? JSONWire.parse(argument), case .object(let object) = value else {
            return .failure(ArgumentProblem("the argument must be a JSON object like {\"format\":\"prometheus\"}"))
        }
        if let unknown = object.keys.first(where: { $0 != "format" }) {
            return .failure(ArgumentProblem("unknown key \"\(unknown)\" (only \"format\")"))
        }
        guard let member = object["format"] else { return .success(.openMetrics) }
        guard case .string(let name) = member, let format = MetricsFormat(rawValue: name) else {
            return .failure(ArgumentProblem("\"format\" must be \(names)"))
        }
        return .success(format)
    }

    /// `"on"`, `"errors"`, `"off"`, quoted (JSON) or bare.
    static func replyMode(_ argument: ArraySlice<UInt8>) -> ReplyMode? {
        var text = String(decoding: argument, as: UTF8.self)
        if let value = try? JSONWire.parse(argument), case .string(let string) = value { text = string }
        switch text {
        case "on": return .on
        case "errors": return .errors
        case "off": return .off
        default: return nil
        }
    }
}
