/// The text of `metrics`: every family of docs/protocol.md's "Metrics", from one `MetricsSample`. Pure, so it runs
/// on the worker thread.
enum MetricsExposition {
    static func render(_ sample: MetricsSample, format: MetricsFormat) -> [UInt8] {
        var text = MetricsText(format: format)
        text.gauge(
            "mobiusd_info", help: "The app the daemon runs, the daemon's version and the history's epoch.",
            [([("app", sample.app), ("version", sample.version), ("epoch", sample.epoch)], "1")])
        text.gauge("mobiusd_seq", help: "The seq of the last applied event.", sample.seq)
        text.gauge(
            "mobiusd_uptime_seconds", unit: "seconds", help: "Seconds since the daemon started.",
            [([], MetricsText.number(sample.uptimeSeconds))])
        events(sample, into: &text)
        text.histogram(
            "mobiusd_pass_latency_seconds",
            help: "Per loop pass, from its first input queued to its replies handed to the connections.",
            sample.passLatency)
        text.histogram(
            "mobiusd_commit_latency_seconds", help: "Per loop pass the journal wrote, the time it took to commit.",
            sample.commitLatency)
        text.histogram(
            "mobiusd_fdatasync_seconds", help: "The journal's fdatasync calls, each for one or more passes.",
            sample.fdatasyncLatency)
        text.gauge(
            "mobiusd_queue_depth", help: "Inputs waiting for the next loop pass, by source.",
            EventSourceKind.allCases.map { ([("source", $0.rawValue)], String(sample.queueDepths[$0])) })
        text.gauge(
            "mobiusd_queue_capacity", help: "How many inputs the loop's queue takes before producers wait.",
            sample.queueCapacity)
        text.gauge("mobiusd_subscribers", help: "Connections subscribed to the model.", sample.subscribers)
        text.gauge("mobiusd_monitors", help: "Connections receiving the monitor trace.", sample.monitors)
        text.gauge("mobiusd_connections", help: "Open control-socket connections.", sample.connections)
        text.counter(
            "mobiusd_effects_unhandled", help: "Effects no handler took.", [([], sample.unhandledEffects)])
        plugins(sample.plugins, into: &text)
        if let journal = sample.journal { self.journal(journal, into: &text) }
        text.gauge(
            "process_resident_memory_bytes", unit: "bytes", help: "The daemon's resident set size.",
            sample.residentBytes)
        return text.finish()
    }

    private static func events(_ sample: MetricsSample, into text: inout MetricsText) {
        text.counter(
            "mobiusd_events_accepted", help: "Events applied, by source.",
            EventSourceKind.allCases.map { ([("source", $0.rawValue)], sample.accepted[$0]) })
        let rejected = sample.rejected.sorted {
            ($0.key.code.rawValue, $0.key.source.rawValue) < ($1.key.code.rawValue, $1.key.source.rawValue)
        }
        text.counter(
            "mobiusd_events_rejected",
            help: "Events and event lines not applied, by error code and source (a series appears with its first).",
            rejected.map { ([("code", $0.key.code.rawValue), ("source", $0.key.source.rawValue)], $0.value) })
        text.counter(
            "mobiusd_events_dropped", help: "Events refused because their source's inbox was full, by source.",
            EventSourceKind.allCases.map { ([("source", $0.rawValue)], sample.droppedByInboxes[$0]) })
    }

    /// The outcomes an effect sent to a plugin can have, as `outcome` labels.
    static let effectOutcomes = ["handled"] + PluginFailure.allCases.map(\.rawValue)

    private static func plugins(_ plugins: [PluginSample], into text: inout MetricsText) {
        let states: [PluginState] = [.starting, .running, .backoff, .failed, .stopped]
        text.gauge(
            "mobiusd_plugin_state", help: "1 for the state each plugin is in, 0 for the others.",
            plugins.flatMap { plugin in
                states.map { ([("plugin", plugin.name), ("state", $0.rawValue)], plugin.state == $0 ? "1" : "0") }
            })
        text.gauge(
            "mobiusd_plugin_effects_in_flight", help: "Effects sent to each plugin and not yet answered.",
            plugins.map { ([("plugin", $0.name)], String($0.inFlight)) })
        text.gauge(
            "mobiusd_plugin_effects_queued", help: "Effects waiting in the daemon for each plugin's concurrency.",
            plugins.map { ([("plugin", $0.name)], String($0.queued)) })
        text.counter(
            "mobiusd_plugin_effects",
            help: "Effects each plugin finished, by outcome (handled, or the failure's code).",
            plugins.flatMap { plugin in
                effectOutcomes.map { outcome in
                    let count =
                        outcome == "handled"
                        ? plugin.handled : PluginFailure(rawValue: outcome).flatMap { plugin.failures[$0] } ?? 0
                    return ([("plugin", plugin.name), ("outcome", outcome)], count)
                }
            })
        text.counter(
            "mobiusd_plugin_restarts", help: "Times each plugin was started again.",
            plugins.map { ([("plugin", $0.name)], $0.restarts) })
    }

    private static func journal(_ journal: JournalSample, into text: inout MetricsText) {
        text.gauge("mobiusd_journal_bytes", unit: "bytes", help: "Bytes in the journal's segment files.", journal.bytes)
        text.gauge("mobiusd_journal_segments", help: "The journal's segment files.", journal.segments)
        text.counter(
            "mobiusd_storage_failures", help: "Passes the journal could not write (their events got StorageFailure).",
            [([], journal.storageFailures)])
        guard let snapshot = journal.snapshot else { return }
        text.gauge("mobiusd_snapshot_seq", help: "The seq the newest snapshot includes.", snapshot.seq)
        text.gauge(
            "mobiusd_snapshot_age_seconds", unit: "seconds", help: "Seconds since the newest snapshot was taken.",
            [([], MetricsText.number(snapshot.ageSeconds))])
    }
}
