/// Structured fields of a log line: which plugin, which event (seq) and which event source it is about. Under
/// systemd they go to the journal as `MOBIUSD_PLUGIN=`, `MOBIUSD_SEQ=` and `MOBIUSD_SOURCE=`, so
/// `journalctl -u mobiusd@app MOBIUSD_PLUGIN=sound` finds one plugin's lines; on stderr only the message is written.
struct LogFields: Sendable, Equatable {
    var plugin: String?
    var seq: UInt64?
    var source: String?

    init(plugin: String? = nil, seq: UInt64? = nil, source: String? = nil) {
        self.plugin = plugin
        self.seq = seq
        self.source = source
    }

    /// The `KEY=value` journal fields set here.
    var journalFields: [String] {
        var fields: [String] = []
        if let plugin { fields.append("MOBIUSD_PLUGIN=\(plugin)") }
        if let seq { fields.append("MOBIUSD_SEQ=\(seq)") }
        if let source { fields.append("MOBIUSD_SOURCE=\(source)") }
        return fields
    }
}
