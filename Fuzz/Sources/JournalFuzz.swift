import MobiusJSON
import MobiusSystem
import MobiusTestSupport

@testable import MobiusDaemon

/// Journal recovery (docs/durability.md, "Recovery"): a history written by the daemon's own writer into a scratch
/// state directory (``JournalHistory``), damaged (``JournalDamage``), then recovered.
///
/// Oracles, the rule of docs/durability.md: recovery either starts or refuses, naming a file of the directory, and a
/// refusal cuts no acknowledged record; when it starts it has lost no acknowledged record that a valid record follows
/// (every record still intact on disk is at or before the seq it recovered), replays exactly the acknowledged events
/// after its snapshot, and its model is the acknowledged model at its seq; `log` serves the acknowledged events, names
/// damage only behind the snapshot, and replaying what it serves gives the recovered model; recovering again gives
/// the same and changes no file; and the daemon can go on writing and recover that too.
enum JournalFuzz {
    /// Where the scratch directories go: `$TMPDIR` (Fuzz/run.sh points it at a tmpfs, where fsync costs nothing).
    static let parent = SystemProcess.environment("TMPDIR") ?? "/tmp"

    /// Recovery's log, into /dev/null: the oracles read outcomes, not lines. With `MOBIUSD_FUZZ_LOG` set it goes to
    /// stderr, to see what recovery said about an input.
    static let log: DaemonLog = {
        if SystemProcess.environment("MOBIUSD_FUZZ_LOG") != nil { return DaemonLog(threshold: .debug) }
        do {
            return DaemonLog(threshold: .error, destination: try FileDescriptor.openFile("/dev/null", .readWrite))
        } catch {
            fatalError("cannot open /dev/null: \(error)")
        }
    }()

    static func run(_ bytes: [UInt8]) {
        let directory: TemporaryDirectory
        do {
            directory = try TemporaryDirectory(prefix: "mobiusd-fuzz-journal", parent: parent)
        } catch {
            fatalError("cannot make a scratch directory: \(error)")
        }
        defer { directory.remove() }
        var input = FuzzInput(bytes)
        let (history, committed) = JournalHistory.write(&input, into: directory.path, log: log)
        JournalDamage.apply(&input, to: directory.path, committed: committed)
        if SystemProcess.environment("MOBIUSD_FUZZ_LOG") != nil {
            for (name, bytes) in snapshotOfFiles(directory.path).sorted(by: { $0.key < $1.key }) {
                log.info("\(name): \(bytes.count) bytes")
            }
        }
        let intact = intactSeqs(directory.path, history)
        checkReplayReader(directory.path, history, intact: intact)
        let recovered = JournalRecovered.run(directory.path, history: history, log: log)
        switch recovered.outcome {
        case .failure(let refusal):
            check(refusal.description.contains(directory.path + "/"), "the refusal names no file: \(refusal)")
            let after = intactSeqs(directory.path, history)
            check(after == intact, "a refusal cut acknowledged records \(intact.subtracting(after).sorted())")
        case .success(let outcome):
            checkStarted(outcome, recovered, history, intact: intact, directory: directory.path)
            let files = snapshotOfFiles(directory.path)
            let again = JournalRecovered.run(directory.path, history: history, log: log)
            guard case .success(let second) = again.outcome else {
                check(false, "recovered once, then refused: \(again.outcome)")
                return
            }
            check(second.lastSeq == outcome.lastSeq && again.model == recovered.model, "a second recovery differs")
            check(snapshotOfFiles(directory.path) == files, "a second recovery changed files")
            goOn(from: second, history: history, model: again.model, directory: directory.path, &input)
        }
    }

    /// `mobiusd replay`'s reader of a state directory (`ReadOnlyJournal`), on the damaged directory before
    /// recovery touches it: it changes no file, and either refuses naming a file of the directory, or reads the
    /// acknowledged events in seq order from where it can start, with no gap, up to at least every intact record (it
    /// ends the journal where recovery would, so it never stops short of an intact record).
    static func checkReplayReader(_ directory: String, _ history: JournalHistory, intact: Set<UInt64>) {
        let files = snapshotOfFiles(directory)
        defer { check(snapshotOfFiles(directory) == files, "replay's reader changed files") }
        do throws(ReplayFailure) {
            let journal = try ReadOnlyJournal.open(directory)
            let end = try journal.end()
            guard let start = journal.earliestStart else { return }
            var reader = ReadOnlyJournal.Reader(journal, from: start + 1)
            var expected = start + 1
            while let record = try reader.next() {
                check(record.seq == expected, "replay read seq \(record.seq) where \(expected) was next")
                check(record.seq <= history.lastSeq, "replay read seq \(record.seq), never acknowledged")
                guard record.seq == expected, record.seq <= history.lastSeq else { return }
                let event = try? JSONValue(parsing: record.text)
                check(event == history.event(record.seq), "replay read \(String(describing: event)) as seq \(expected)")
                expected += 1
            }
            check(expected - 1 == end.lastSeq, "replay's reader ends at \(expected - 1), its end at \(end.lastSeq)")
            check(
                intact.allSatisfy { $0 <= end.lastSeq },
                "replay ends at seq \(end.lastSeq) before intact \(intact.filter { $0 > end.lastSeq }.sorted())")
        } catch {
            check(error.description.contains(directory), "replay's refusal names no file: \(error)")
        }
    }

    /// The seqs of acknowledged records whose exact bytes are still in some segment file.
    static func intactSeqs(_ directory: String, _ history: JournalHistory) -> Set<UInt64> {
        var found: Set<UInt64> = []
        for name in JournalDamage.stateFiles(directory) where JournalSegment.firstSeq(ofName: name) != nil {
            guard let bytes = try? FileSystem.read(directory + "/" + name) else { continue }
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset + JournalRecord.headerSize < raw.count {
                    let seq = raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self).littleEndian
                    if seq >= 1 && seq <= history.lastSeq {
                        let record = history.record(seq)
                        if offset + record.count <= raw.count
                            && raw[offset..<(offset + record.count)].elementsEqual(record)
                        {
                            found.insert(seq)
                        }
                    }
                    offset += 1
                }
            }
        }
        return found
    }

    static func snapshotOfFiles(_ directory: String) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in (try? DirectoryListing.names(in: directory)) ?? [] {
            files[name] = try? FileSystem.read(directory + "/" + name)
        }
        return files
    }

    static func checkStarted(
        _ outcome: JournalRecovery.Outcome, _ recovered: JournalRecovered, _ history: JournalHistory,
        intact: Set<UInt64>, directory: String
    ) {
        let last = outcome.lastSeq
        let base = recovered.restored?.seq ?? 0
        check(last <= history.lastSeq, "recovered seq \(last), but only \(history.lastSeq) were acknowledged")
        check(
            intact.allSatisfy { $0 <= last },
            "started at seq \(last) though acknowledged records \(intact.filter { $0 > last }.sorted()) are intact")
        check(
            recovered.replayed.map(\.seq) == Array((base + 1)..<(last + 1)),
            "replayed \(recovered.replayed.map(\.seq)) after the snapshot at \(base), recovering seq \(last)")
        for (seq, event) in recovered.replayed {
            check(event == history.event(seq), "replayed \(event) as seq \(seq), acknowledged \(history.event(seq))")
        }
        check(recovered.model == history.model(after: last), "the recovered model is not the model at seq \(last)")
        checkLog(
            outcome.catalog, history, through: last, base: base, model: recovered.model, snapshot: recovered.restored)
    }

    /// `log {"since":0}` as a client reads it to the end, going on after each damaged range as docs/durability.md
    /// says (`since` the range's last seq).
    static func checkLog(
        _ catalog: JournalCatalog, _ history: JournalHistory, through last: UInt64, base: UInt64, model: JSONValue,
        snapshot: SnapshotFile?
    ) {
        let reader = JournalReader(catalog: catalog)
        let first = catalog.firstKeptSeq ?? last + 1
        check(first <= base + 1, "log starts at seq \(first), after the snapshot at \(base)")
        var next = first
        var cursor: JournalReader.Cursor?
        var served: [(UInt64, JSONValue)] = []
        var damaged: [ClosedRange<UInt64>] = []
        var reads = 0
        while next <= last {
            reads += 1
            check(reads < 100_000, "log does not get to seq \(last)")
            let chunk = reader.read(from: next, through: last, maxBytes: 1024, cursor: cursor)
            var expected = next
            for line in chunk.lines.split(separator: UInt8(ascii: "\n")) {
                guard let item = try? JSONValue(parsing: line), let seq = item["seq"]?.numberValue?.uint64Value,
                    let event = item["event"]
                else {
                    check(false, "log served \(String(decoding: line, as: UTF8.self))")
                    return
                }
                check(seq == expected, "log served seq \(seq) where \(expected) was next")
                served.append((seq, event))
                expected += 1
            }
            check(!chunk.vanished, "log found seq \(chunk.next) compacted away")
            check(chunk.next > next || chunk.damage != nil || chunk.cursor != cursor, "log made no progress at \(next)")
            next = chunk.next
            cursor = chunk.cursor
            if let damage = chunk.damage {
                check(
                    damage.lastSeq <= base,
                    "log names seqs \(damage.firstSeq)...\(damage.lastSeq) damaged after the snapshot at \(base)")
                damaged.append(damage.firstSeq...damage.lastSeq)
                next = damage.lastSeq + 1
                cursor = nil
            }
        }
        let covered = served.map(\.0) + damaged.flatMap { Array($0) }
        check(
            covered.sorted() == Array(first..<(last + 1)),
            "log serves and names \(covered.sorted()), not \(first)...\(last)")
        for (seq, event) in served {
            check(event == history.event(seq), "log serves \(event) as seq \(seq)")
        }
        // Replaying what log serves: from the start when it serves all of it, else from the snapshot.
        let fromStart = first == 1 && damaged.isEmpty
        let start = fromStart ? JournalHistory.initialModel : snapshot?.model ?? JournalHistory.initialModel
        let replayed = served.filter { fromStart || $0.0 > base }.reduce(start) { JournalHistory.apply($1.1, to: $0) }
        check(replayed == model, "replaying what log serves does not give the recovered model")
    }

    /// The daemon goes on after recovery: a few more events in a new segment (and perhaps a snapshot), recovered
    /// again.
    static func goOn(
        from outcome: JournalRecovery.Outcome, history: JournalHistory, model: JSONValue, directory: String,
        _ input: inout FuzzInput
    ) {
        let writer = JournalWriter(
            directory: directory, catalog: outcome.catalog, segmentBytes: 4096, policy: .never, log: log)
        var expected = model
        var buffer: [UInt8] = []
        let count = UInt64(input.int(1...3))
        for offset in 1...count {
            let event: JSONValue = ["more": .number(JSONNumber(offset))]
            JournalRecord.append(seq: outcome.lastSeq + offset, time: 0, encoding: event, to: &buffer)
            expected = JournalHistory.apply(event, to: expected)
        }
        do {
            try writer.append(buffer, firstSeq: outcome.lastSeq + 1, lastSeq: outcome.lastSeq + count)
            if input.bool() {
                try writer.writeSnapshot(
                    SnapshotFile(epoch: JournalHistory.epoch, seq: outcome.lastSeq + count, time: 0, model: expected))
            }
        } catch {
            check(false, "after recovering seq \(outcome.lastSeq) the journal cannot be written: \(error)")
        }
        writer.close()
        let again = JournalRecovered.run(directory, history: history, log: log)
        guard case .success(let next) = again.outcome else {
            check(false, "after writing on, recovery refused: \(again.outcome)")
            return
        }
        check(
            next.lastSeq == outcome.lastSeq + count, "wrote on to \(outcome.lastSeq + count), recovered \(next.lastSeq)"
        )
        check(again.model == expected, "the model after writing on differs")
    }
}
