import MobiusJSON

extension DBusBusWorker {
    /// The filter: every message the connection dispatches (bus thread). Method calls are left to libdbus, which
    /// answers them `UnknownMethod`.
    func handle(_ message: DBusMessage) -> Bool {
        switch message.kind {
        case .signal: handleSignal(message)
        case .methodReturn, .error: handleReply(message)
        case .methodCall, .other: break
        }
        return false
    }

    private func handleSignal(_ message: DBusMessage) {
        let header = message.header(stringArguments: max(argumentCount, 3))
        // libdbus's own notice that the connection is gone; the serve loop sees the state.
        if header.path == "/org/freedesktop/DBus/Local" { return }
        if header.sender == "org.freedesktop.DBus" && header.interface == "org.freedesktop.DBus"
            && header.member == "NameOwnerChanged"
        {
            noteOwnerChange(header)
        }
        var converted: (limits: DBusReadLimits, result: Result<([JSONValue], Int), DBusMessage.ReadProblem>)?
        for (index, source) in sources.enumerated() {
            let owner = source.rule.wellKnownSender.flatMap { owners[$0] }
            guard source.rule.matches(header, senderOwner: owner) else { continue }
            if converted?.limits != source.limits {
                converted = (
                    source.limits,
                    Result { () throws(DBusMessage.ReadProblem) in
                        let read = try message.arguments(limits: source.limits)
                        return (read.values, read.cost)
                    }
                )
            }
            switch converted!.result {
            case .success(let (values, cost)):
                var members: [(String, JSONValue)] = [("type", .string(source.type))]
                members.append(("sender", header.sender.map(JSONValue.string) ?? .null))
                members.append(("path", header.path.map(JSONValue.string) ?? .null))
                members.append(("interface", header.interface.map(JSONValue.string) ?? .null))
                members.append(("member", header.member.map(JSONValue.string) ?? .null))
                members.append(("args", .array(values)))
                let event = Self.merged(JSONObject(members), source.event)
                if post(event, cost: cost + DBusReadLimits.eventCost, source: index) {
                    statuses[index].update { $0.signals += 1 }
                }
            case .failure(let problem):
                statuses[index].update { $0.tooLarge += 1 }
                log.limited(
                    "dbus too large", .warning,
                    "D-Bus source \(source.name): signal \(header.interface ?? "").\(header.member ?? "") from "
                        + "\(header.sender ?? "?") dropped: \(problem)")
            }
        }
    }

    /// `base` with the members of `overlay` (an object) set over it.
    static func merged(_ base: JSONObject, _ overlay: JSONValue?) -> JSONValue {
        var object = base
        if case .object(let extra)? = overlay {
            for (key, value) in extra.members { object[key] = value }
        }
        return .object(object)
    }

    /// Posts an event to the loop within the budget; counts a drop against source `index` (if any) and logs which
    /// bound refused it.
    func post(_ event: JSONValue, cost: Int, source index: Int?) -> Bool {
        let total = inFlightCost.add(cost, ordering: .relaxed).newValue
        let name = index.map { sources[$0].name } ?? "mobiusd.dbus.call"
        let refusal: String
        if total > DBusReadLimits.busBudget {
            refusal =
                "the events waiting for the loop would cost \(total) bytes with this one (\(cost) bytes), over the "
                + "bus's budget of \(DBusReadLimits.busBudget) bytes"
        } else if inbox.post(DBusDelivery(event: event, source: name, cost: cost)) {
            return true
        } else if stopRequested {
            refusal = "the bus is being closed"
        } else {
            refusal = "\(Self.inboxCapacity) events are waiting for the loop (the loop is behind)"
        }
        inFlightCost.subtract(cost, ordering: .relaxed)
        if let index { statuses[index].update { $0.dropped += 1 } }
        log.limited("dbus dropped", .warning, "D-Bus \(bus): dropped an event for \(name): \(refusal)")
        return false
    }

    /// `NameOwnerChanged(name, old, new)` for a tracked name: the owner changes; a new owner of an initial read's
    /// destination is read again (the service restarted, or started after the daemon).
    private func noteOwnerChange(_ header: DBusSignalHeader) {
        guard header.stringArguments.count >= 3, let name = header.stringArguments[0],
            let newOwner = header.stringArguments[2], trackedNames.contains(name)
        else { return }
        owners[name] = newOwner.isEmpty ? nil : newOwner
        guard !newOwner.isEmpty else { return }
        for (index, source) in sources.enumerated() where source.initialRead?.destination == name {
            rereads.insert(index)
        }
    }

    /// Runs the initial reads of the sources at `indices` (blocking calls on the bus thread); each reply becomes
    /// an event like a signal's, with `"initialRead":true`.
    func runReads(_ indices: [Int]) {
        guard let connection else { return }
        for index in indices {
            guard let read = sources[index].initialRead else { continue }
            let source = sources[index]
            do {
                guard let message = read.message() else { continue }
                let reply = try connection.call(message, timeoutMilliseconds: Int32(read.timeout * 1000))
                let (values, cost) = try reply.arguments(limits: source.limits)
                let members: [(String, JSONValue)] = [
                    ("type", .string(source.type)), ("sender", reply.sender.map(JSONValue.string) ?? .null),
                    ("path", .string(read.path)), ("interface", read.interface.map(JSONValue.string) ?? .null),
                    ("member", .string(read.member)), ("args", .array(values)), ("initialRead", true),
                ]
                let event = Self.merged(
                    Self.merged(JSONObject(members), source.event).objectValue!, source.initialReadEvent)
                if post(event, cost: cost + DBusReadLimits.eventCost, source: index) {
                    statuses[index].update { $0.reads += 1 }
                }
            } catch {
                statuses[index].update { $0.lastError = "initial read: \(error)" }
                log.limited(
                    "dbus read", .warning,
                    "D-Bus source \(source.name): initial read \(read.destination) \(read.member) failed: \(error)")
            }
        }
    }
}
