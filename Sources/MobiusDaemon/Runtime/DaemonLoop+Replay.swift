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
    /// (PROTOCOL.md 5). Each event takes its journaled seq. An event the update rejects now (the app changed since
    /// it was journaled) leaves the model as it was; it is logged, never dropped silently. The model-depth check is
    /// not repeated: the live daemon journaled only events that passed it.
    func replay(_ events: [(seq: UInt64, event: JSONValue)]) {
        for (seq, json) in events {
            do {
                let event = try app.codec.decodeEvent(json)
                if let model = try app.update(state.model, event).model {
                    state.model = model
                    state.modelJSON = nil
                }
            } catch {
                log.warning(
                    "replay: the app rejects journaled event \(seq) now (\(EventRejection.message(for: error))); "
                        + "the model stays as it was before it")
            }
            state.seq = seq
        }
    }
}
