import MobiusJSON

extension DBusSources {
    /// Applies a SIGHUP reload's `dbus` section: each bus whose sources changed gets a new worker (a new
    /// connection, its matches added again, its initial reads run again) and the old one is stopped; buses whose
    /// sources did not change keep running untouched. `mobiusd.dbus.*` effects still waiting on a replaced bus's
    /// old connection get their error events from it as it closes. Returns a summary, `nil` when nothing changed.
    func reload(_ change: ReloadRegistry.Change) -> String? {
        var buses: [String] = []
        for source in change.old.dbus + change.new.dbus where !buses.contains(source.bus) { buses.append(source.bus) }
        var changes: [String] = []
        for bus in buses {
            let before = change.old.dbus.filter { $0.bus == bus }
            let after = change.new.dbus.filter { $0.bus == bus }
            guard before.map(Self.fingerprint) != after.map(Self.fingerprint) else { continue }
            replaceWorker(bus: bus, sources: after)
            changes.append(after.isEmpty ? "\(bus): sources removed" : "\(bus): re-matched")
        }
        return changes.isEmpty ? nil : changes.joined(separator: ", ")
    }

    /// Everything about a source that config sets, as one comparable text.
    static func fingerprint(_ source: DaemonConfig.DBusSource) -> String {
        let read = source.initialRead.map { read in
            "\(read.destination) \(read.path) \(read.interface ?? "") \(read.member) \(read.arguments) \(read.timeout)"
        }
        let event = source.event.map { String(decoding: $0.encoded(), as: UTF8.self) } ?? ""
        let readEvent = source.initialReadEvent.map { String(decoding: $0.encoded(), as: UTF8.self) } ?? ""
        return [
            source.bus, source.type, source.name, source.rule.text, event, read ?? "", readEvent,
            "\(source.limits.maxValues) \(source.limits.maxStringBytes)",
        ].joined(separator: "\u{0}")
    }
}
