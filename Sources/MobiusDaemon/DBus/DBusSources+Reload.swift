import MobiusJSON

extension DBusSources {
    /// What a SIGHUP reload does to D-Bus sources: nothing yet. A changed `dbus` section is reported as needing a
    /// restart (the running sources keep their buses, rules and reads); `nil` when it did not change.
    static func reloadSummary(_ change: ReloadRegistry.Change) -> String? {
        guard change.old.dbus.map(fingerprint) != change.new.dbus.map(fingerprint) else { return nil }
        return "changed; takes effect at the next restart"
    }

    /// Everything about a source that config sets, as one comparable text.
    private static func fingerprint(_ source: DaemonConfig.DBusSource) -> String {
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
