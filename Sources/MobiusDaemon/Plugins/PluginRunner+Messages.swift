import MobiusJSON
import MobiusSystem

extension PluginRunner {
    /// A response's outcome.
    enum Answer {
        case result(JSONValue)
        case error(String)
    }

    // MARK: - From the plugin

    func channelEvent(_ event: PluginChannel.Event) {
        switch event {
        case .line(let bytes):
            receive(bytes)
        case .oversized(let prefix):
            violation("a stdout line over maxLineBytes (\(spec.config.maxLineBytes) bytes)", line: prefix[...])
        case .stderrLine(let line):
            stderrLine(line)
        case .stdoutClosed:
            pipeClosed("stdout")
        case .stdinBroken:
            pipeClosed("stdin")
        case .exited(let termination):
            processExited(termination)
        }
    }

    private func receive(_ bytes: ArraySlice<UInt8>) {
        guard exitReason == nil else { return }
        if let (id, result) = PluginMessage.compactResult(bytes) {
            answered(id, .result(result), line: bytes)
            return
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            violation("not JSON: \(error)", line: bytes)
            return
        }
        let message: PluginMessage
        do {
            message = try PluginMessage(value)
        } catch {
            violation("not a JSON-RPC 2.0 message: \(error)", line: bytes)
            return
        }
        switch message {
        case .notification(let method, let params): notification(method, params, line: bytes)
        case .result(let id, let result): answered(id, .result(result), line: bytes)
        case .error(let id, _, let text): answered(id, .error(text), line: bytes)
        }
    }

    private func notification(_ method: String, _ params: JSONValue, line: ArraySlice<UInt8>) {
        switch method {
        case "event":
            guard let event = params["event"] else {
                violation("an \"event\" notification without \"event\"", line: line)
                return
            }
            if let id = params["id"] {
                guard let number = id.int64Value else {
                    violation("an \"event\" notification whose \"id\" is not an integer", line: line)
                    return
                }
                // Events for an effect that has ended (cancelled, timed out) are dropped, as docs/protocol.md 2.3 says.
                guard case .effect? = inFlight[number] else { return }
            } else {
                guard state == .running else {
                    violation("an event before \"initialized\"", line: line)
                    return
                }
            }
            owner.plugin(self, sent: event)
        case "progress":
            guard let id = params["id"]?.int64Value else {
                violation("a \"progress\" notification without an integer \"id\"", line: line)
                return
            }
            guard case .effect(let effect, _)? = inFlight[id] else { return }
            inFlight[id] = .effect(effect: effect, deadline: effectDeadline())
        default:
            log.limited(
                "plugin \(name) unknown notification", .warning,
                "plugin \(name): ignored a notification with unknown method \"\(method)\"")
        }
    }

    private func answered(_ id: Int64, _ outcome: Answer, line: ArraySlice<UInt8>) {
        guard let call = inFlight.removeValue(forKey: id) else {
            // Late answers to cancelled or timed-out effects land here; anything else is a plugin's mistake.
            if id >= nextID {
                violation("an answer to request \(id), which the host never sent", line: line)
            }
            return
        }
        switch call {
        case .initialize:
            switch outcome {
            case .result(let result): handshake(result, line: line)
            case .error(let text):
                log.error("plugin \(name): initialize failed: \(text)")
                exitReason = (.pluginExited, "refused initialize: \(text)")
                channel?.process.signalGroup(.kill)
            }
        case .effect(let effect, _):
            effectsInFlight -= 1
            switch outcome {
            case .result(let result):
                if let events = result["events"] {
                    guard case .array(let list) = events else {
                        failed += 1
                        violation("\"result.events\" is not an array", line: line)
                        return
                    }
                    for event in list { owner.plugin(self, sent: event) }
                }
                handled += 1
            case .error(let text):
                fail(effect, .pluginError, "plugin \(name): \(text)")
            }
            pump()
        case .update(let update):
            updateInFlight = false
            switch outcome {
            case .result(let result): update.completion(.success(result))
            case .error(let text): update.completion(.failure(.rejected(text)))
            }
            pump()
        case .shutdown:
            closeAndEscalate()
        }
    }

    private func handshake(_ result: JSONValue, line: ArraySlice<UInt8>) {
        let version = result["protocol"]
        guard version?.int64Value == 1 else {
            let theirs = version.map { String(decoding: $0.encoded(), as: UTF8.self) } ?? "none"
            log.error("plugin \(name) speaks protocol \(theirs); this mobiusd speaks protocol 1")
            restartable = false
            exitReason = (.pluginExited, "speaks protocol \(theirs), not 1")
            channel?.process.signalGroup(.kill)
            return
        }
        var announced: [String] = []
        if let effects = result["effects"] {
            guard case .array(let list) = effects, list.allSatisfy({ $0.stringValue != nil }) else {
                violation("\"effects\" in the initialize result is not an array of strings", line: line)
                return
            }
            announced = list.compactMap(\.stringValue)
        }
        if let reserved = announced.first(where: { $0.hasPrefix("mobiusd.") }) {
            log.error("plugin \(name) claims \"\(reserved)\"; keys starting with mobiusd. are the daemon's own")
            refuse("claims the reserved key \"\(reserved)\"")
            return
        }
        handlesUpdate = result["update"]?.boolValue ?? false
        handlesBatch = handlesUpdate && (result["batch"]?.boolValue ?? false)
        if let conflict = owner.plugin(self, announces: announced) {
            log.error("plugin \(name): \(conflict)")
            refuse(conflict)
            return
        }
        keys = announced
        becameRunning()
    }

    /// A start that no restart can fix.
    private func refuse(_ why: String) {
        restartable = false
        exitReason = (.pluginExited, why)
        channel?.process.signalGroup(.kill)
    }

    private func stderrLine(_ line: String) {
        var level = DaemonLog.Level.info
        var text = Substring(line)
        if text.count >= 3, text.hasPrefix("<"), let digit = text.dropFirst().first?.wholeNumberValue,
            text.dropFirst(2).first == ">"
        {
            text = text.dropFirst(3)
            level = DaemonLog.Level(rawValue: max(3, min(7, digit))) ?? .error
        }
        if stderrTail.count == Self.stderrTailLines { stderrTail.removeFirst() }
        stderrTail.append(String(text.prefix(512)))
        log.limited("plugin \(name) stderr", level, "plugin \(name): \(text)", fields: LogFields(plugin: name))
    }

    /// Whether stdout may be read now; if not, asks the loop to say when it has room.
    func mayReadEvents() -> Bool {
        if owner.mayDeliverEvents(from: self) { return true }
        if !waitingForRoom {
            waitingForRoom = true
            owner.notifyWhenRoom { [weak self] in
                guard let self else { return }
                waitingForRoom = false
                channel?.resumeReading()
            }
        }
        return false
    }

    // MARK: - Effects

    /// Sends `effect` (routing key `key`) now or queues it; fails it at once only when the plugin is `failed` or
    /// stopped. A queue that reaches `maxQueued` pushes back on the daemon's edges instead of failing what comes.
    func submit(_ effect: JSONValue, key: String) {
        switch state {
        case .failed, .stopped:
            fail(effect, .unavailable, "plugin \(name) is \(state.rawValue)")
            return
        case .running where effectsInFlight < spec.config.concurrency && waitingHead == waiting.count:
            send(effect)
            return
        default:
            break
        }
        waiting.append((effect, key))
        if !pushingBack, waiting.count - waitingHead >= spec.config.maxQueued {
            pushingBack = true
            owner.plugin(self, pushesBack: true)
        }
    }

    /// Lets the edges go once the queue has drained to half of `maxQueued` (hysteresis: the edges are not held and
    /// let go for every effect).
    func stopPushingBackIfDrained() {
        guard pushingBack, waiting.count - waitingHead <= spec.config.maxQueued / 2 else { return }
        pushingBack = false
        owner.plugin(self, pushesBack: false)
    }

    /// Sends what waits, as far as `concurrency` allows, and the next update request.
    func pump() {
        guard state == .running, channel != nil else { return }
        while effectsInFlight < spec.config.concurrency, waitingHead < waiting.count {
            let item = waiting[waitingHead]
            waitingHead += 1
            send(item.effect)
        }
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: waiting.capacity <= 4096)
            waitingHead = 0
        } else if waitingHead > 1024 && waitingHead * 2 > waiting.count {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
        stopPushingBackIfDrained()
        if !updateInFlight, !updatesWaiting.isEmpty {
            let update = updatesWaiting.removeFirst()
            updateInFlight = true
            let id = nextID
            nextID += 1
            inFlight[id] = .update(update)
            channel?.send(PluginMessage.request(id: id, method: update.method, encodedParams: update.params))
        }
    }

    /// Sends `effect`, or fails it with `Unavailable` when its request line would be longer than the plugin's
    /// `maxLineBytes` (the plugin could not read it, and would be restarted over it).
    private func send(_ effect: JSONValue) {
        let id = nextID
        let limit = spec.config.maxLineBytes
        var fits = true
        channel?.send { buffer in
            let start = buffer.count
            PluginMessage.appendEffectRequest(id: id, effect: effect, to: &buffer)
            if buffer.count - start - 1 > limit {
                buffer.removeSubrange(start...)
                fits = false
            }
        }
        guard fits else {
            fail(effect, .unavailable, "the effect does not fit in one line to plugin \(name) (maxLineBytes \(limit))")
            return
        }
        nextID += 1
        let deadline = effectDeadline()
        inFlight[id] = .effect(effect: effect, deadline: deadline)
        effectsInFlight += 1
        if effectSweep == nil { armEffectSweep(at: deadline) }
    }

    /// When an effect sent or progressed now times out.
    private func effectDeadline() -> UInt64 {
        let (deadline, overflow) = SystemProcess.monotonicNanoseconds().addingReportingOverflow(
            Self.nanoseconds(spec.config.timeout))
        return overflow ? .max : deadline
    }

    /// Arms the sweep at `deadline`. Every effect has the same timeout and `progress` only moves a deadline later,
    /// so the sweep, once armed at the earliest deadline, is never late: effects sent after it was armed time out
    /// later. It may fire early (that effect was answered): it then re-arms at the earliest deadline left, so with
    /// a steady stream of effects it fires about once per timeout.
    private func armEffectSweep(at deadline: UInt64) {
        let now = SystemProcess.monotonicNanoseconds()
        effectSweep = reactor.after(nanoseconds: deadline > now ? deadline - now : 0) { [unowned self] in
            effectSweep = nil
            sweepEffects()
        }
    }

    /// Times out every effect past its deadline (oldest first), then re-arms at the earliest deadline left.
    private func sweepEffects() {
        let now = SystemProcess.monotonicNanoseconds()
        var expired: [Int64] = []
        var earliest = UInt64.max
        for (id, call) in inFlight.entries {
            guard case .effect(_, let deadline) = call else { continue }
            if deadline <= now { expired.append(id) } else { earliest = min(earliest, deadline) }
        }
        for id in expired.sorted() {
            guard case .effect(let effect, _)? = inFlight.removeValue(forKey: id) else { continue }
            effectsInFlight -= 1
            timedOut += 1
            channel?.send(
                PluginMessage.notification(method: "cancel", params: .object(["id": .number(JSONNumber(id))])))
            fail(effect, .timeout, "plugin \(name) made no progress on it within \(spec.config.timeout) s")
        }
        if earliest != .max, effectSweep == nil { armEffectSweep(at: earliest) }
        if !expired.isEmpty { pump() }
    }

    /// Counts and reports a failed effect.
    func fail(_ effect: JSONValue, _ code: PluginFailure, _ message: String) {
        failed += 1
        owner.plugin(self, failed: effect, code: code, message: message)
    }

    // MARK: - Updates

    /// Sends `init`, `update` or `updateBatch`; `completion` gets the result. One is in flight at a time, in
    /// order; one in flight when the plugin dies is sent again after its restart.
    func call(
        _ method: String, params: [UInt8], completion: @escaping (Result<JSONValue, PluginUpdateCall.Failure>) -> Void
    ) {
        let update = PluginUpdateCall(method: method, params: params, completion: completion)
        switch state {
        case .failed, .stopped:
            completion(.failure(.unavailable("the update plugin \(name) is \(state.rawValue)")))
        default:
            updatesWaiting.append(update)
            pump()
        }
    }
}
