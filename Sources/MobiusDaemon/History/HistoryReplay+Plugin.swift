import MobiusJSON

extension HistoryReplay {
    /// How many events go to an update plugin in one request of a replay (at most the plugin's own `maxBatch`).
    static var pluginBatchEvents: Int { 1024 }

    /// Replays the records `from...through` onto `model` through a process of the app's update plugin of its own
    /// (started from `spec` for this replay and stopped after it, so the running plugin and the live loop's passes
    /// never wait for it), in batches when the plugin takes them. Only the model after the last event is computed:
    /// this serves `model {"at":N}`, not `log {"models":true}`.
    ///
    /// - Returns: the chunk read, or why the plugin could not replay (it did not start, or failed for good).
    func replay(
        _ model: inout Model, from: UInt64, through: UInt64, plugin spec: PluginSpec, label: String, log: DaemonLog,
        progress: ReplayProgress?, rejections: inout Rejections, invalid: inout UInt64?
    ) -> Result<JournalReader.Chunk, HistoryProblem> {
        guard from <= through else { return .success(JournalReader.Chunk(next: from)) }
        let start: JSONValue
        do {
            start = try app.codec.encodeModel(model)
        } catch {
            return .failure(.unavailable(.internal, "the app cannot encode its model: \(error)"))
        }
        let plugin: PluginReplayUpdate
        do throws(ReplayFailure) {
            plugin = try PluginReplayUpdate(spec: spec, model: start, label: label, log: log)
        } catch {
            return .failure(.unavailable(.unavailable, error.description))
        }
        defer { plugin.close() }
        var failure: ReplayFailure?
        var batch: [ReplayEvent] = []
        batch.reserveCapacity(Self.pluginBatchEvents)
        /// Sends the batch and waits for its outcomes; `false` when the plugin cannot answer.
        func send() -> Bool {
            guard !batch.isEmpty else { return true }
            plugin.begin(batch[...], singly: false)
            do throws(ReplayFailure) {
                let steps = try plugin.finish()
                for (event, step) in zip(batch, steps) {
                    if case .rejected(let message) = step.outcome { rejections.note(event.seq, message: message) }
                }
            } catch {
                failure = error
                return false
            }
            progress?.advance(by: batch.count)
            batch.removeAll(keepingCapacity: true)
            return true
        }
        do throws(ReplayFailure) {
            try plugin.ready()
        } catch {
            return .failure(.unavailable(.unavailable, error.description))
        }
        let chunk = JournalReader(catalog: catalog).read(from: from, through: through, maxBytes: .max, cursor: nil) {
            record, _ in
            guard !stopped.isRaised else { return false }
            guard let json = try? JSONValue(parsing: record.event) else {
                invalid = record.seq
                return false
            }
            batch.append(ReplayEvent(seq: record.seq, time: record.time, text: ArraySlice(record.event), json: json))
            return batch.count < Self.pluginBatchEvents || send()
        }
        if failure == nil && !stopped.isRaised { _ = send() }
        if let failure { return .failure(.unavailable(.unavailable, failure.description)) }
        do {
            model = try app.codec.decodeModel(plugin.model)
        } catch {
            return .failure(.unavailable(.internal, "the app cannot read back the plugin's model: \(error)"))
        }
        return .success(chunk)
    }
}
