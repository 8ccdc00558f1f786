import MobiusCore
import MobiusJSON

extension DaemonLoop {
    /// Starts the loop from a snapshot: its model (decoded by the app's codec) and the seq it includes.
    ///
    /// - Throws: the codec's error when the snapshot's model does not fit the app's model.
    func restore(model json: JSONValue, seq: UInt64) throws {
        state.model = try app.codec.decodeModel(json)
        state.modelJSON = nil
        state.seq = seq
    }

    /// Replays journaled events through the app's synchronous update, in order, with their effects discarded
    /// (docs/protocol.md 5). Each event takes its journaled seq. An event the update rejects now (the app changed since
    /// it was journaled) leaves the model as it was; it is logged, never dropped silently. The model-depth check is
    /// not repeated: the live daemon journaled only events that passed it.
    ///
    /// With an update plugin the events wait until `start`, which replays them through the plugin before initiate,
    /// once the plugin runs. `progress` counts each event replayed (with an update plugin: each event read).
    func replay(_ events: [(seq: UInt64, event: JSONValue)], progress: ReplayProgress? = nil) {
        if eventsAsText {
            pendingReplay += events
            progress?.advance(by: events.count)
            return
        }
        replayAtOnce(events, progress: progress)
    }

    /// Applies journaled events through the app's own update, in order, effects discarded.
    func replayAtOnce(_ events: [(seq: UInt64, event: JSONValue)], progress: ReplayProgress? = nil) {
        for (seq, json) in events {
            defer { progress?.advance() }
            do {
                let event = try decodeEvent(json)
                if try rules.update(state.model, event).apply(to: &state.model) { state.modelJSON = nil }
            } catch {
                log.warning(
                    "replay: the app rejects journaled event \(seq) now (\(EventRejection.message(for: error))); "
                        + "the model stays as it was before it")
            }
            state.seq = seq
        }
    }

    /// Replays the events `replay` kept for the external update, then calls `done` (on the reactor thread) with
    /// `nil`, or with why the replay cannot be done (the update plugin failed for good). A plugin that ends during
    /// the replay is restarted and asked again; the model and seq stay the snapshot's until the replay succeeds,
    /// so no model is ever served under a seq it does not belong to.
    func replayThroughExternalUpdate(
        _ externalUpdate: ExternalUpdate<Model, Event, Effect>, then done: @escaping (String?) -> Void
    ) {
        guard !pendingReplay.isEmpty else {
            done(nil)
            return
        }
        let records = pendingReplay
        pendingReplay = []
        var texts: [ArraySlice<UInt8>] = []
        var seqs: [UInt64] = []
        for (seq, json) in records {
            do {
                _ = try decodeEvent(json)
                texts.append(ArraySlice(json.encoded()))
                seqs.append(seq)
            } catch {
                log.warning("replay: journaled event \(seq) no longer decodes (\(error)); skipped")
            }
        }
        log.info("replaying \(texts.count) journaled events through the update plugin")
        externalUpdate.prepare(state.model, [texts]) { [self] outcome in
            switch outcome {
            case .success(let outcomes):
                for (index, result) in outcomes.enumerated() where index < seqs.count {
                    switch result {
                    case .success(let next):
                        if next.apply(to: &state.model) { state.modelJSON = nil }
                    case .failure(let rejection):
                        log.warning(
                            "replay: the update plugin rejects journaled event \(seqs[index]) now (\(rejection.message)); "
                                + "the model stays as it was before it")
                    }
                }
            case .failure(let unavailable):
                done(
                    "cannot replay journaled events \(records.first?.seq ?? 0)-\(records.last?.seq ?? 0) "
                        + "(\(unavailable.message))")
                return
            }
            if let last = records.last { state.seq = max(state.seq, last.seq) }
            done(nil)
        }
    }
}
