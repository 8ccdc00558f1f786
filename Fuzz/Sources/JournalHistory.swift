import MobiusJSON
import MobiusSystem
import MobiusTestSupport

@testable import MobiusDaemon

/// An acknowledged history, written into a state directory by the daemon's own `JournalWriter` as a fuzz input plans
/// it: passes of events, storage failures that undo a pass, snapshots with their compaction, and restarts, each of
/// which runs recovery on the clean journal and goes on with the catalog it gives, as start-up does.
///
/// It remembers what was acknowledged: each event and its record's bytes by seq, and the model after each seq, for
/// the oracles of ``JournalFuzz``.
struct JournalHistory {
    static let epoch = "0123456789abcdef"

    /// The app the history is written for: counts its events and folds their text into a digest, so a model tells
    /// exactly which events in which order made it.
    static let initialModel: JSONValue = ["count": 0, "digest": 0]

    static func apply(_ event: JSONValue, to model: JSONValue) -> JSONValue {
        var digest = model["digest"]?.numberValue?.uint64Value ?? 0
        for byte in event.encoded() { digest = (digest ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return [
            "count": .number(JSONNumber((model["count"]?.int64Value ?? 0) + 1)), "digest": .number(JSONNumber(digest)),
        ]
    }

    /// Acknowledged events by seq (from 1), with the bytes of their records.
    private(set) var events: [JSONValue] = []
    private(set) var records: [[UInt8]] = []
    /// `models[seq]`: the model after `seq` (`models[0]` the initial one).
    private(set) var models: [JSONValue] = [initialModel]

    var lastSeq: UInt64 { UInt64(events.count) }

    func event(_ seq: UInt64) -> JSONValue { events[Int(seq) - 1] }
    func record(_ seq: UInt64) -> [UInt8] { records[Int(seq) - 1] }
    func model(after seq: UInt64) -> JSONValue { models[Int(seq)] }

    private mutating func acknowledge(_ event: JSONValue, record: [UInt8]) {
        events.append(event)
        records.append(record)
        models.append(Self.apply(event, to: models.last!))
    }

    /// Writes the history `input` plans into `directory`; returns it and the segments' committed lengths by path
    /// (where their zero-filled room starts).
    static func write(
        _ input: inout FuzzInput, into directory: String, log: DaemonLog
    ) -> (history: JournalHistory, committed: [String: Int64]) {
        let policy = [DaemonConfig.FsyncPolicy.always, .batch, .never][input.int(0...2)]
        let segmentBytes = input.int(64...4096)
        var history = JournalHistory()
        var catalog = JournalCatalog(segments: [], snapshots: [])
        var writer = JournalWriter(
            directory: directory, catalog: catalog, segmentBytes: segmentBytes, policy: policy, log: log)
        let time: Int64 = 1_767_225_600_000_000_000
        for pass in 0..<input.int(1...24) {
            var buffer: [UInt8] = []
            var written: [(JSONValue, [UInt8])] = []
            for offset in 0..<UInt64(input.int(1...6)) {
                let seq = history.lastSeq + 1 + offset
                let event: JSONValue = ["n": .number(JSONNumber(seq)), "p": .string(hex(input.bytes(upTo: 12)))]
                let start = buffer.count
                JournalRecord.append(seq: seq, time: time + Int64(pass) * 1000, encoding: event, to: &buffer)
                written.append((event, Array(buffer[start...])))
            }
            let faults = input.oneIn(10) ? [Fault(input.bool() ? .pwrite : .fdatasync, .fail(.ioError))] : []
            let backgroundSync = policy == .always && input.bool()
            let committed = FaultInjection.run(faults) {
                commit(
                    buffer, of: history.lastSeq + 1, count: written.count, to: writer, backgroundSync: backgroundSync)
            }.result
            if committed {
                for (event, record) in written { history.acknowledge(event, record: record) }
            }
            if writer.fillDue() { writer.fillAhead() }
            if history.lastSeq > 0 && input.oneIn(5) {
                let snapshot = SnapshotFile(
                    epoch: epoch, seq: history.lastSeq, time: time, model: history.model(after: history.lastSeq))
                do {
                    try writer.writeSnapshot(snapshot)
                } catch {
                    fatalError("cannot write a snapshot into \(directory): \(error)")
                }
            }
            if input.oneIn(6) {
                writer.close()
                catalog = restart(directory, history, log: log)
                writer = JournalWriter(
                    directory: directory, catalog: catalog, segmentBytes: segmentBytes, policy: policy, log: log)
            }
        }
        writer.close()
        var committed: [String: Int64] = [:]
        for segment in catalog.segments { committed[segment.path] = segment.length }
        return (history, committed)
    }

    /// One pass as the daemon commits it: written and synced by `append` (the journal thread's way), or written by
    /// `writeForSync` and synced apart (the kernel's background way); after a failure the segment is abandoned as
    /// `DaemonJournal` abandons it. Whether the pass was acknowledged.
    private static func commit(
        _ buffer: [UInt8], of firstSeq: UInt64, count: Int, to writer: JournalWriter, backgroundSync: Bool
    ) -> Bool {
        let lastSeq = firstSeq + UInt64(count) - 1
        if backgroundSync {
            let written: FileDescriptor?
            do {
                written = try writer.writeForSync(buffer)
            } catch {
                writer.abandon(after: error)
                return false
            }
            if let fd = written {
                do {
                    try fd.synchronizeData()
                } catch {
                    writer.abandon(after: error)
                    return false
                }
                writer.synced(byteCount: buffer.count, lastSeq: lastSeq, nanoseconds: 0)
                return true
            }
        }
        do {
            try writer.append(buffer, firstSeq: firstSeq, lastSeq: lastSeq)
            return true
        } catch {
            return false
        }
    }

    /// A restart on the undamaged journal: recovery must give back exactly the acknowledged history.
    private static func restart(_ directory: String, _ history: JournalHistory, log: DaemonLog) -> JournalCatalog {
        let recovered = JournalRecovered.run(directory, history: history, log: log)
        guard case .success(let outcome) = recovered.outcome else {
            fatalError("oracle failed: recovery of an undamaged journal stopped: \(recovered.outcome)")
        }
        check(
            outcome.lastSeq == history.lastSeq,
            "an undamaged journal recovered seq \(outcome.lastSeq), not \(history.lastSeq)")
        check(recovered.model == history.model(after: history.lastSeq), "an undamaged journal recovered another model")
        return outcome.catalog
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16) }.joined()
    }
}
