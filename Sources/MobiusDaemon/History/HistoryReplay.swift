import MobiusCore
import MobiusJSON
import MobiusSystem

/// Past models from the state directory, computed on the history thread as recovery computes the model at start-up:
/// the newest snapshot at or before a seq (or the app's initial model, while the journal still holds the history
/// from seq 1), then the journaled events after it through the app's update, effects discarded (docs/durability.md,
/// "The model at any seq"). The app's update and codec are pure, so calling them here, beside the loop, is safe.
struct HistoryReplay<Model, Event, Effect>: Sendable {
    let app: DaemonApp<Model, Event, Effect>
    let catalog: JournalCatalog
    let directory: String
    let epoch: String
    /// Set at shutdown: a replay under way stops at its next event.
    let stopped: StopFlag

    /// Events of the replay the app's update rejects now (it changed since they were journaled): the model stays as
    /// before each, as in recovery; the first is named in the log.
    struct Rejections {
        var count = 0
        var first: (seq: UInt64, message: String)?

        mutating func note(_ seq: UInt64, _ error: any Error) {
            note(seq, message: EventRejection.message(for: error))
        }

        mutating func note(_ seq: UInt64, message: String) {
            count += 1
            if first == nil { first = (seq, message) }
        }
    }

    /// Where a replay to `seq` starts: the seq of its base (a snapshot's, or 0 for the initial model) and the model
    /// there. The newest base at or before `seq` whose snapshot reads back whole is used; the range from it to `seq`
    /// must hold no damaged records.
    func base(for seq: UInt64) -> Result<(seq: UInt64, model: Model), HistoryProblem> {
        let bases = catalog.replayBases
        var unreadable: [String] = []
        for base in bases.reversed() where base <= seq {
            if base < seq, let damage = catalog.damage(in: (base + 1)...seq) {
                return .failure(
                    .damaged(
                        damage, "the journal cannot serve seq \(damage.firstSeq)...\(damage.lastSeq): \(damage.problem)"
                    ))
            }
            guard base > 0 else { return .success((0, app.initialModel)) }
            switch snapshotModel(base) {
            case .success(let model): return .success((base, model))
            case .failure(let problem): unreadable.append(problem.description)
            }
        }
        guard unreadable.isEmpty else { return .failure(.damaged(nil, unreadable.joined(separator: "; "))) }
        return .failure(.compacted(firstSeq: bases.first))
    }

    /// The model in the snapshot of `seq`, or why it cannot be used (naming the file).
    private func snapshotModel(_ seq: UInt64) -> Result<Model, SnapshotFile.Problem> {
        let snapshot: SnapshotFile
        do throws(SnapshotFile.Problem) {
            snapshot = try SnapshotFile.read(seq: seq, in: directory, epoch: epoch)
        } catch {
            return .failure(error)
        }
        do {
            return .success(try app.codec.decodeModel(snapshot.model))
        } catch {
            return .failure(
                SnapshotFile.Problem(
                    description: "the snapshot \(directory)/\(SnapshotFile.name(seq: seq)) holds a model the app "
                        + "cannot take: \(error)"))
        }
    }

    /// Replays the records `from...through` onto `model` (the model right after `from - 1`), in order: each event
    /// through the app's update, effects discarded, then `each` with the record and the model after it, which may
    /// append to the chunk's lines. Stops once they reach about `maxBytes`, before damage, at shutdown, or at a
    /// record that holds no JSON (then `invalid` names it).
    func replay(
        _ model: inout Model, from: UInt64, through: UInt64, maxBytes: Int, cursor: JournalReader.Cursor?,
        progress: ReplayProgress?, rejections: inout Rejections, invalid: inout UInt64?,
        each: (JournalRecord, Model, inout [UInt8]) -> Void
    ) -> JournalReader.Chunk {
        guard from <= through else { return JournalReader.Chunk(next: from) }
        return JournalReader(catalog: catalog).read(from: from, through: through, maxBytes: maxBytes, cursor: cursor) {
            record, lines in
            guard !stopped.isRaised else { return false }
            guard let json = try? JSONValue(parsing: record.event) else {
                invalid = record.seq
                return false
            }
            do {
                let event = try app.codec.decodeEvent(json)
                let next = try app.update(model, event)
                _ = next.apply(to: &model)
            } catch {
                rejections.note(record.seq, error)
            }
            progress?.advance()
            each(record, model, &lines)
            return true
        }
    }

    /// Why a replay that stopped at `chunk` did not reach `target`, or `nil` when it did.
    func shortfall(_ chunk: JournalReader.Chunk, target: UInt64, invalid: UInt64?) -> HistoryProblem? {
        if stopped.isRaised {
            return .unavailable(.shuttingDown, "the daemon is shutting down")
        }
        if let invalid {
            return .damaged(nil, "journaled record \(invalid) holds no valid JSON")
        }
        if let damage = chunk.damage {
            return .damaged(
                damage, "the journal cannot serve seq \(damage.firstSeq)...\(damage.lastSeq): \(damage.problem)")
        }
        if chunk.vanished { return .compacted(firstSeq: catalog.replayBases.first) }
        guard chunk.next > target else { return .damaged(nil, "the journal ends at seq \(chunk.next - 1)") }
        return nil
    }
}
