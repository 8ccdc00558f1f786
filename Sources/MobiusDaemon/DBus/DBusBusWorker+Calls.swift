import MobiusJSON
import MobiusSystem

extension DBusBusWorker {
    /// Takes the queued commands: sends them on `connection`, or fails them when there is none. Returns `false`
    /// when the daemon is stopping.
    func takeCommands(connected connection: DBusConnection?) -> Bool {
        let (taken, stop) = commands.withLock { pending -> ([DBusCommand], Bool) in
            let taken = pending.queue
            pending.queue.removeAll()
            return (taken, pending.stop)
        }
        for command in taken {
            switch command {
            case .call(let message, let timeout, let template, let what):
                guard let connection else {
                    fail(template, what, .disconnected("the \(bus) bus is not connected (state \(state.rawValue))"))
                    continue
                }
                let waitsForReply = template.map { _ in true } ?? false
                guard !waitsForReply || pendingCalls.count < Self.maxPendingCalls else {
                    fail(template, what, .limitsExceeded("\(Self.maxPendingCalls) calls already wait for replies"))
                    continue
                }
                guard let serial = connection.send(message) else {
                    fail(
                        template, what,
                        DBusFailure(name: "org.freedesktop.DBus.Error.NoMemory", message: "out of memory"))
                    continue
                }
                if let template {
                    let deadline = SystemProcess.monotonicNanoseconds() + UInt64(timeout * 1e9)
                    pendingCalls[serial] = PendingCall(template: template, deadline: deadline, what: what)
                }
            case .emit(let message, let what):
                if connection?.send(message) == nil {
                    log.limited(
                        "dbus emit", .warning, "mobiusd.dbus.emit \(what): not sent, the \(bus) bus is not connected")
                }
            }
        }
        return !stop
    }

    /// A method return or error: the reply to a pending call becomes its event.
    func handleReply(_ message: DBusMessage) {
        guard let call = pendingCalls.removeValue(forKey: message.replySerial) else { return }
        if message.kind == .error {
            let text = (try? message.arguments(limits: DBusReadLimits()))?.values.first?.stringValue ?? ""
            fail(
                call.template, call.what,
                DBusFailure(name: message.errorName ?? "org.freedesktop.DBus.Error.Failed", message: text))
            return
        }
        do {
            let (values, cost) = try message.arguments(limits: DBusReadLimits())
            var object = call.template.objectValue ?? JSONObject()
            object["reply"] = .array(values)
            _ = post(.object(object), cost: cost + DBusReadLimits.eventCost, source: nil)
        } catch {
            fail(call.template, call.what, .limitsExceeded("the reply is too large: \(error)"))
        }
    }

    /// Reports a failed call: an event from its template with `"error":{"name":…,"message":…}`, or a log line
    /// when the effect asked for no event.
    func fail(_ template: JSONValue?, _ what: String, _ failure: DBusFailure) {
        log.limited("dbus call", .warning, "mobiusd.dbus.call \(what) failed: \(failure)")
        guard let template else { return }
        var object = template.objectValue ?? JSONObject()
        object["error"] = .object(
            JSONObject([("name", .string(failure.name)), ("message", .string(failure.message))]))
        _ = post(.object(object), cost: 512, source: nil)
    }

    func failPendingCalls(_ failure: DBusFailure) {
        let calls = pendingCalls
        pendingCalls.removeAll()
        for (_, call) in calls.sorted(by: { $0.key < $1.key }) { fail(call.template, call.what, failure) }
    }

    /// Calls past their deadline fail with `NoReply`.
    func expireCalls() {
        guard !pendingCalls.isEmpty else { return }
        let now = SystemProcess.monotonicNanoseconds()
        for (serial, call) in pendingCalls.sorted(by: { $0.key < $1.key }) where call.deadline <= now {
            pendingCalls.removeValue(forKey: serial)
            fail(call.template, call.what, .noReply("no reply within the call's timeout"))
        }
    }

    /// Milliseconds until the nearest call deadline, or -1 (wait for ever) with none.
    func nextCallTimeout() -> Int32 {
        guard let nearest = pendingCalls.values.map(\.deadline).min() else { return -1 }
        let now = SystemProcess.monotonicNanoseconds()
        guard nearest > now else { return 0 }
        return Int32(min((nearest - now) / 1_000_000 + 1, 3_600_000))
    }
}
