import MobiusJSON
import MobiusSystem

extension PluginSession {
    /// Handles one line from the host. Nothing the host sends makes the plugin trap: a line that is not a JSON-RPC
    /// request or notification gets the JSON-RPC error reply (`id` null when it has none) and a log line.
    func receive(_ line: [UInt8]) {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }  // blank lines are ignored
        let message: JSONValue
        do {
            message = try JSONValue(parsing: line)
        } catch {
            PluginLog.warning("host sent a line that is not JSON (\(error)): \(preview(line))")
            replyError(id: .null, code: RPCMessage.parseError, message: "Parse error: \(error)")
            return
        }
        guard case .object(let object) = message else {
            PluginLog.warning("host sent JSON that is not a JSON-RPC object: \(preview(line))")
            replyError(id: .null, code: RPCMessage.invalidRequest, message: "Invalid Request: not a JSON-RPC object")
            return
        }
        let id = object["id"]
        switch id {
        case nil, .number?, .string?: break
        default:
            replyError(id: .null, code: RPCMessage.invalidRequest, message: "Invalid Request: bad id")
            return
        }
        guard case .string(let method)? = object["method"], object["jsonrpc"] == "2.0" else {
            if id != .none, object["method"] == .none, object["result"] != .none || object["error"] != .none {
                PluginLog.warning("host sent a response, but this plugin makes no requests: \(preview(line))")
                return
            }
            PluginLog.warning("host sent an invalid JSON-RPC message: \(preview(line))")
            replyError(
                id: id ?? .null, code: RPCMessage.invalidRequest,
                message: "Invalid Request: needs \"jsonrpc\":\"2.0\" and a string \"method\"")
            return
        }
        if let id {
            request(id: id, method: method, params: object["params"])
        } else {
            notification(method: method, params: object["params"])
        }
    }

    /// Handles a line that was over the limit (it was skipped unread).
    func receiveTooLong(_ count: Int) {
        PluginLog.warning("host sent a line of \(count) bytes, over the limit of \(plugin.maxLineBytes); skipped")
        replyError(
            id: .null, code: RPCMessage.invalidRequest,
            message: "Invalid Request: line of \(count) bytes exceeds the limit of \(plugin.maxLineBytes)")
    }

    /// The host closed stdin: cancel what runs; the caller exits.
    func endOfInput() {
        cancelAll()
    }

    private func request(id: JSONValue, method: String, params: JSONValue?) {
        let configuration = state.withLock { $0.configuration }
        switch method {
        case "initialize":
            initialize(id: id, params: params, already: configuration != nil)
        case "ping":
            reply(id: id, result: .object([:]))
        case "shutdown":
            shutdown(id: id)
        case "effect", "init", "update", "updateBatch":
            guard let configuration else {
                replyError(id: id, code: RPCMessage.notInitialized, message: "\(method) before initialize")
                return
            }
            if method == "effect" {
                effect(id: id, params: params, configuration: configuration)
            } else {
                updateRequest(id: id, method: method, params: params)
            }
        default:
            replyError(id: id, code: RPCMessage.methodNotFound, message: "Method not found: \(method)")
        }
    }

    private func notification(method: String, params: JSONValue?) {
        switch method {
        case "initialized":
            started()
        case "cancel":
            guard let id = params?["id"] else {
                PluginLog.warning("host sent cancel without an id")
                return
            }
            cancel(id: id)
        default:
            PluginLog.debug("host sent an unknown notification \"\(method)\"; ignored")
        }
    }

    private func initialize(id: JSONValue, params: JSONValue?, already: Bool) {
        guard !already else {
            replyError(id: id, code: RPCMessage.invalidRequest, message: "initialize was already received")
            return
        }
        guard let configuration = PluginConfiguration(params: params) else {
            replyError(
                id: id, code: RPCMessage.invalidParams,
                message: "initialize params must be an object with object options")
            return
        }
        if configuration.protocolVersion != 1 {
            PluginLog.warning("host speaks protocol \(configuration.protocolVersion); this plugin speaks protocol 1")
        }
        if let hook = plugin.initializeHook {
            do {
                try hook(configuration)
            } catch {
                let (code, message) = RPCMessage.describe(error)
                PluginLog.error("start refused: \(message)")
                replyError(id: id, code: code, message: message)
                writer.flush()
                SystemProcess.exit(1)
            }
        }
        state.withLock { $0.configuration = configuration }
        var result: JSONObject = [
            "protocol": 1, "name": .string(plugin.name), "version": .string(plugin.version),
            "effects": .array(plugin.handlers.map { .string($0.key) }),
            "update": .bool(plugin.updateFunction != nil),
        ]
        if plugin.updateFunction != nil { result["batch"] = true }
        reply(id: id, result: .object(result))
    }

    private func started() {
        let (early, dropped, configuration, first) = state.withLock { state in
            let first = !state.started && state.configuration != nil
            if first { state.started = true }
            let early = state.early
            state.early = []
            return (early, state.droppedEarly, state.configuration, first)
        }
        guard first, let configuration else {
            PluginLog.warning("host sent initialized before initialize, or twice; ignored")
            return
        }
        if dropped > 0 { PluginLog.warning("\(dropped) events emitted before initialized were dropped") }
        for event in early { emitUnsolicited(event) }
        if let hook = plugin.startHook {
            let sink = EventSink(session: self)
            Task.detached {
                do {
                    try await hook(sink, configuration)
                } catch {
                    PluginLog.error("event source stopped: \(RPCMessage.describe(error).message)")
                }
            }
        }
    }

    private func shutdown(id: JSONValue) {
        state.withLock { $0.shuttingDown = true }
        cancelAll()
        plugin.shutdownHook?()
        reply(id: id, result: .object([:]))
    }

    private func effect(id: JSONValue, params: JSONValue?, configuration: PluginConfiguration) {
        guard let effect = params?["effect"] else {
            replyError(id: id, code: RPCMessage.invalidParams, message: "effect params need an \"effect\" member")
            return
        }
        guard let key = EffectKey.of(effect), let handler = handlers[key] else {
            let key = EffectKey.of(effect).map { "key \"\($0)\"" } ?? "an unroutable effect"
            replyError(id: id, code: RPCMessage.invalidParams, message: "no handler for \(key)")
            return
        }
        let effectState = EffectState()
        let request = EffectRequest(
            id: id, effect: effect, key: key, configuration: configuration, session: self, state: effectState)
        let refusal: String? = state.withLock { state in
            if state.shuttingDown { return "the plugin is shutting down" }
            if state.inFlight[id] != nil { return "an effect with id \(describe(id)) is already in flight" }
            guard case .task(let handler) = handler else { return nil }
            let task = Task.detached { [self] in
                let outcome: Result<[JSONValue], any Error>
                do {
                    outcome = .success(try await handler(request))
                } catch {
                    outcome = .failure(error)
                }
                finish(id: id, state: effectState, outcome: outcome)
            }
            state.inFlight[id] = InFlight(state: effectState, task: task)
            return nil
        }
        if let refusal {
            replyError(id: id, code: RPCMessage.invalidRequest, message: refusal, deferred: true)
            return
        }
        if case .inline(let handler) = handler {
            finish(id: id, state: effectState, outcome: Result { try handler(request) }, deferred: true)
        }
    }

    /// At most 200 bytes of a line, for log messages.
    func preview(_ line: [UInt8]) -> String {
        let cut = PluginLog.validPrefixLength(line, limit: 200)
        return String(decoding: line[..<cut], as: UTF8.self) + (line.count > cut ? "…" : "")
    }
}
