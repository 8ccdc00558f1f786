import MobiusJSON

extension PluginSession {
    /// Answers `init`, `update` and `updateBatch` (docs/protocol.md 2.5) on the calling (reader) thread, in order.
    func updateRequest(id: JSONValue, method: String, params: JSONValue?) {
        guard let initFunction = plugin.initFunction, let updateFunction = plugin.updateFunction else {
            replyError(
                id: id, code: RPCMessage.methodNotFound, message: "Method not found: \(method) (not an update plugin)")
            return
        }
        guard case .object(let params)? = params else {
            replyError(id: id, code: RPCMessage.invalidParams, message: "\(method) params must be an object")
            return
        }
        let model = params["model"] ?? .null
        switch method {
        case "init":
            answer(id: id) { try initFunction(model) }
        case "update":
            guard let event = params["event"] else {
                replyError(id: id, code: RPCMessage.invalidParams, message: "update params need an \"event\" member")
                return
            }
            answer(id: id) { try updateFunction(model, event) }
        default:
            guard case .array(let events)? = params["events"] else {
                replyError(
                    id: id, code: RPCMessage.invalidParams, message: "updateBatch params need an \"events\" array")
                return
            }
            reply(id: id, result: Self.batch(model: model, events: events, update: updateFunction), deferred: true)
        }
    }

    private func answer(id: JSONValue, _ body: () throws -> UpdateResult) {
        do {
            reply(id: id, result: try body().json, deferred: true)
        } catch {
            let (code, message) = RPCMessage.describe(error)
            replyError(id: id, code: code, message: message, deferred: true)
        }
    }

    /// `updateBatch` on top of `update`: each event sees the model the previous applied event left; a rejected
    /// event leaves it as it was. `model` is in the result only when some event changed it.
    static func batch(model: JSONValue, events: [JSONValue], update: Plugin.UpdateFunction) -> JSONValue {
        var current = model
        var changed = false
        var results: [JSONValue] = []
        results.reserveCapacity(events.count)
        for event in events {
            do {
                let next = try update(current, event)
                if let model = next.model {
                    current = model
                    changed = true
                }
                results.append(
                    next.effects.isEmpty ? .object(JSONObject()) : .object(["effects": .array(next.effects)]))
            } catch {
                let (code, message) = RPCMessage.describe(error)
                results.append(.object(["error": RPCMessage.errorObject(code: code, message: message)]))
            }
        }
        var result = JSONObject()
        if changed { result["model"] = current }
        result["results"] = .array(results)
        return .object(result)
    }
}
