import MobiusJSON

@testable import MobiusDaemon

/// One run of start-up recovery over a state directory, and the model it gives: the snapshot's (or the initial one)
/// with the replayed events applied, as the loop applies them.
struct JournalRecovered {
    let outcome: Result<JournalRecovery.Outcome, DaemonStartError>
    let restored: SnapshotFile?
    let replayed: [JournalRecovery.Replayed]
    let model: JSONValue

    static func run(_ directory: String, history: JournalHistory, log: DaemonLog) -> JournalRecovered {
        var restored: SnapshotFile?
        var replayed: [JournalRecovery.Replayed] = []
        let recovery = JournalRecovery(directory: directory, epoch: JournalHistory.epoch, log: log)
        let outcome = Result { () throws(DaemonStartError) in
            try recovery.run(restore: { restored = $0 }, replay: { replayed += $0 })
        }
        let model = replayed.reduce(restored?.model ?? JournalHistory.initialModel) {
            JournalHistory.apply($1.event, to: $0)
        }
        return JournalRecovered(outcome: outcome, restored: restored, replayed: replayed, model: model)
    }
}
