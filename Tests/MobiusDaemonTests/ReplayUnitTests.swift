import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

@testable import MobiusDaemon

/// `replay`'s parts on their own: the diff of two models, the read-only journal reader over state directories built
/// byte by byte, the comparison over sides whose answers the test chooses, and the command line.
@Suite("Replay: diff, journal reader, comparison, options")
struct ReplayUnitTests {
    // MARK: - ModelDiff

    @Test func theDiffNamesEachChangeByPointer() {
        let from: JSONValue = ["locked": true, "failedAttempts": 1, "codes": ["a", "b", "c"], "user": ["name": "x"]]
        let to: JSONValue = ["failedAttempts": 10, "codes": ["a", "z"], "user": ["name": "x", "a/b": 1], "last": "0"]
        let diff = ModelDiff(from: from, to: to)
        #expect(
            diff.changes == [
                .removed(JSONPointer(tokens: ["locked"]), true),
                .changed(JSONPointer(tokens: ["failedAttempts"]), from: 1, to: 10),
                .changed(JSONPointer(tokens: ["codes", "1"]), from: "b", to: "z"),
                .removed(JSONPointer(tokens: ["codes", "2"]), "c"),
                .added(JSONPointer(tokens: ["user", "a/b"]), 1),
                .added(JSONPointer(tokens: ["last"]), "0"),
            ])
        #expect(diff.count == 6)
        #expect(JSONPointer(tokens: ["user", "a/b"]).description == "/user/a~1b")
    }

    @Test func anotherTypeOrAWholeModelIsOneChange() {
        #expect(
            ModelDiff(from: ["a": 1], to: ["a": [1]]).changes == [
                .changed(JSONPointer(tokens: ["a"]), from: 1, to: [1])
            ])
        #expect(ModelDiff(from: 1, to: 2).changes == [.changed(JSONPointer(tokens: []), from: 1, to: 2)])
        #expect(ModelDiff(from: ["a": 1.0], to: ["a": 1]).count == 0, "numbers compare by value")
        #expect(ModelDiff(from: [], to: [1, 2]).changes.map(\.pointerText) == ["/0", "/1"])
    }

    @Test func aLongDiffIsCutButCounted() {
        let from = JSONValue.array((0..<200).map { .number(JSONNumber($0)) })
        let to = JSONValue.array((0..<200).map { .number(JSONNumber($0 + 1)) })
        let diff = ModelDiff(from: from, to: to, limit: 50)
        #expect(diff.changes.count == 50)
        #expect(diff.count == 200)
    }

    // MARK: - ReadOnlyJournal

    let epoch = "00112233445566ff"

    /// A state directory with its epoch file.
    func stateDirectory() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "replay-unit")
        _ = try directory.write(epoch + "\n", to: StateDirectory.epochName)
        return directory
    }

    /// A segment of `seqs` (31 bytes a record), then `tail` (zeros a running daemon keeps ahead, or junk).
    @discardableResult
    func segment(
        _ directory: TemporaryDirectory, firstSeq: UInt64, seqs: ClosedRange<UInt64>?, tail: [UInt8] = []
    ) throws -> String {
        var bytes = JournalSegment.header(firstSeq: firstSeq)
        for seq in seqs ?? 1...0 {
            JournalRecord.append(seq: seq, time: 0, encoding: ["n": .number(JSONNumber(seq))], to: &bytes)
        }
        bytes += tail
        let path = directory.file(JournalSegment.name(firstSeq: firstSeq))
        let fd = try FileDescriptor.openFile(path, .createNew(mode: 0o600))
        defer { fd.close() }
        try fd.writeAll(bytes, at: 0)
        return path
    }

    func snapshot(_ directory: TemporaryDirectory, seq: UInt64, model: JSONValue) throws {
        _ = try SnapshotFile(epoch: epoch, seq: seq, time: 0, model: model).write(into: directory.path)
    }

    func seqs(_ directory: TemporaryDirectory, from: UInt64) throws(ReplayFailure) -> [UInt64] {
        var reader = ReadOnlyJournal.Reader(try ReadOnlyJournal.open(directory.path), from: from)
        var seqs: [UInt64] = []
        while let record = try reader.next() { seqs.append(record.seq) }
        return seqs
    }

    /// Every file's bytes, by name.
    func contents(_ directory: TemporaryDirectory) throws -> [String: [UInt8]] {
        var all: [String: [UInt8]] = [:]
        for name in try DirectoryListing.names(in: directory.path) {
            all[name] = try FileSystem.read(directory.file(name))
        }
        return all
    }

    @Test func theReaderGoesAcrossSegmentsFromAnySeqAndLeavesTheFilesAlone() throws {
        let directory = try stateDirectory()
        defer { directory.remove() }
        try segment(directory, firstSeq: 1, seqs: 1...4)
        // The running daemon's segment: its zero-filled room, and a torn record at the end of another.
        try segment(directory, firstSeq: 5, seqs: 5...7, tail: [UInt8](repeating: 0, count: 4096))
        let before = try contents(directory)
        #expect(try seqs(directory, from: 1) == [1, 2, 3, 4, 5, 6, 7])
        #expect(try seqs(directory, from: 3) == [3, 4, 5, 6, 7])
        #expect(try seqs(directory, from: 6) == [6, 7])
        let end = try ReadOnlyJournal.open(directory.path).end()
        #expect(end.lastSeq == 7 && end.tornTail == nil, "the zero-filled room is no torn write: \(end)")
        #expect(try contents(directory) == before, "nothing cut, written or removed")
    }

    @Test func aTornLastRecordEndsTheHistory() throws {
        let directory = try stateDirectory()
        defer { directory.remove() }
        var torn: [UInt8] = []
        JournalRecord.append(seq: 4, time: 0, encoding: ["n": 4], to: &torn)
        let path = try segment(directory, firstSeq: 1, seqs: 1...3, tail: Array(torn.prefix(20)))
        #expect(try seqs(directory, from: 1) == [1, 2, 3])
        let end = try ReadOnlyJournal.open(directory.path).end()
        #expect(end.lastSeq == 3)
        #expect(end.tornTail == "\(path) at byte \(16 + 3 * 31): a record that runs past the end of the file")
        // A segment a daemon is making: not even its header yet.
        let fd = try FileDescriptor.openFile(directory.file(JournalSegment.name(firstSeq: 4)), .createNew(mode: 0o600))
        fd.close()
        #expect(try ReadOnlyJournal.open(directory.path).end().lastSeq == 3)
    }

    @Test func damageThatAValidRecordFollowsNamesTheFileAndTheOffset() throws {
        let directory = try stateDirectory()
        defer { directory.remove() }
        let path = try segment(directory, firstSeq: 1, seqs: 1...5)
        // Seq 3's event bytes: header, two records of 31 bytes, then its own 24-byte header.
        var bytes = try FileSystem.read(path)
        let third = 16 + 2 * 31
        bytes[third + 26] ^= 0xFF
        let fd = try FileDescriptor.openFile(path, .readWrite)
        try fd.writeAll(bytes, at: 0)
        fd.close()
        let failure = #expect(throws: ReplayFailure.self) { try seqs(directory, from: 1) }
        #expect(
            failure?.description
                == "the journal segment \(path) is damaged at byte \(third): a checksum mismatch, and a valid record "
                + "of seq 4 follows at byte \(third + 31)")
    }

    @Test func missingSeqsBetweenSegmentsAreAnError() throws {
        let directory = try stateDirectory()
        defer { directory.remove() }
        try segment(directory, firstSeq: 1, seqs: 1...3)
        let second = try segment(directory, firstSeq: 6, seqs: 6...7)
        let failure = #expect(throws: ReplayFailure.self) { try seqs(directory, from: 2) }
        #expect(failure?.description == "the journal has no record of seqs 4...5: \(second) starts at seq 6")
        try FileSystem.remove(directory.file(JournalSegment.name(firstSeq: 1)))
        let compacted = #expect(throws: ReplayFailure.self) { try seqs(directory, from: 2) }
        #expect(compacted?.description == "the journal no longer holds seq 2 (compacted): \(second) starts at seq 6")
    }

    @Test func aRecordAStorageFailureUndidIsNotRead() throws {
        let directory = try stateDirectory()
        defer { directory.remove() }
        try segment(directory, firstSeq: 1, seqs: 1...5)
        try segment(directory, firstSeq: 4, seqs: 4...6)
        #expect(try seqs(directory, from: 1) == [1, 2, 3, 4, 5, 6])
    }

    @Test func aReplayStartsFromTheNewestSnapshotTheJournalGoesOnFrom() throws {
        let directory = try stateDirectory()
        defer { directory.remove() }
        // Compacted: the records before 11 are gone; snapshots at 10 and 20.
        try segment(directory, firstSeq: 11, seqs: 11...25)
        try snapshot(directory, seq: 10, model: ["n": 10])
        try snapshot(directory, seq: 20, model: ["n": 20])
        let history = try ReadOnlyJournal.open(directory.path)
        #expect(history.earliestStart == 10)
        #expect(try history.base(for: 10)?.model == ["n": 10])
        #expect(try history.base(for: 19)?.seq == 10)
        #expect(try history.base(for: 22)?.seq == 20)
        let failure = #expect(throws: ReplayFailure.self) { try history.base(for: 5) }
        #expect(failure?.description.hasSuffix("the earliest --since is 10") == true, "\(String(describing: failure))")
    }

    @Test func aSnapshotOfAnotherHistoryIsRefused() throws {
        let directory = try stateDirectory()
        defer { directory.remove() }
        try segment(directory, firstSeq: 1, seqs: 1...5)
        _ = try SnapshotFile(epoch: "ffffffffffffffff", seq: 3, time: 0, model: 0).write(into: directory.path)
        let failure = #expect(throws: ReplayFailure.self) { try ReadOnlyJournal.open(directory.path).base(for: 4) }
        #expect(failure?.description.contains("belongs to epoch ffffffffffffffff") == true)
    }

    // MARK: - ReplayComparison

    /// A side over integer models whose answers the test chooses: `update(model, event)` gives the new model (or
    /// `nil`: rejected) and the effects. With `batches`, models inside a run are unknown unless asked singly.
    final class FakeSide: ReplayUpdate {
        let label = "fake"
        let runsElsewhere = false
        private(set) var model: JSONValue = 0
        private let batches: Bool
        private let update: (Int, Int) -> (model: Int, effects: [JSONValue])?
        private var events: ArraySlice<ReplayEvent> = []
        private var singly = false
        private(set) var singlyRuns = 0

        init(batches: Bool, update: @escaping (Int, Int) -> (model: Int, effects: [JSONValue])?) {
            self.batches = batches
            self.update = update
        }

        func ready() {}
        func reset(to model: JSONValue) { self.model = model }
        func initiate() {}
        func close() {}

        func begin(_ events: ArraySlice<ReplayEvent>, singly: Bool) {
            self.events = events
            self.singly = singly
            if singly { singlyRuns += 1 }
        }

        func finish() -> [ReplayStep] {
            var steps: [ReplayStep] = []
            for event in events {
                let current = Int(model.int64Value ?? 0)
                if let (next, effects) = update(current, Int(event.json.int64Value ?? 0)) {
                    model = .number(JSONNumber(next))
                    steps.append(ReplayStep(outcome: .applied(effects: effects), model: model))
                } else {
                    steps.append(ReplayStep(outcome: .rejected("no"), model: model))
                }
                if batches && !singly { steps[steps.count - 1].model = nil }
            }
            if !steps.isEmpty { steps[steps.count - 1].model = model }
            return steps
        }
    }

    func events(_ values: ClosedRange<Int>) -> [ReplayEvent] {
        values.map { value in
            ReplayEvent(
                seq: UInt64(value), time: 0, text: ArraySlice(String(value).utf8), json: .number(JSONNumber(value)))
        }
    }

    func compare(
        _ current: FakeSide, _ candidate: FakeSide, _ events: [ReplayEvent], all: Bool
    ) throws -> (ReplayComparison, [ReplayDivergence]) {
        var found: [ReplayDivergence] = []
        let comparison = ReplayComparison(current: current, candidate: candidate, everyDivergence: all) {
            found.append($0)
        }
        comparison.begin(events)
        _ = try comparison.finish()
        return (comparison, found)
    }

    @Test("a model difference a batch hides is found at its event, asked one at a time")
    func aBatchHidesNoModelDifference() throws {
        let current = FakeSide(batches: true) { model, event in (model + event, []) }
        // From event 4 on the candidate adds one more: the batch shows only the last model.
        let candidate = FakeSide(batches: true) { model, event in (model + event + (event >= 4 ? 1 : 0), []) }
        let (comparison, found) = try compare(current, candidate, events(1...10), all: false)
        #expect(found.map(\.event.seq) == [4])
        #expect(found.first?.current.model == 10)
        #expect(found.first?.candidate.model == 11)
        #expect(comparison.compared == 4)
        #expect(candidate.singlyRuns == 1)
    }

    @Test("after a divergence the candidate goes on from the current's model: one divergence per rule it breaks")
    func everyDivergenceIsCountedFromTheSameModel() throws {
        let current = FakeSide(batches: true) { model, event in (model + event, []) }
        let candidate = FakeSide(batches: false) { model, event in
            (model + event, event % 3 == 0 ? [["type": "three"]] : [])
        }
        let (comparison, found) = try compare(current, candidate, events(1...10), all: true)
        #expect(found.map(\.event.seq) == [3, 6, 9])
        #expect(found.first?.candidate.outcome == .applied(effects: [["type": "three"]]))
        #expect(comparison.compared == 10)
        #expect(comparison.divergences == [3, 6, 9])
    }

    @Test("a model that parts once is one divergence: the candidate is not left behind on its own model")
    func aModelDivergenceIsCountedOnce() throws {
        let current = FakeSide(batches: true) { model, event in (model + event, []) }
        let candidate = FakeSide(batches: true) { model, event in (model + event + (event == 3 ? 1 : 0), []) }
        let (comparison, found) = try compare(current, candidate, events(1...10), all: true)
        #expect(found.map(\.event.seq) == [3])
        #expect(comparison.compared == 10)
    }

    @Test func oneSideRejectingIsADivergenceAndTwoRejectionsAgree() throws {
        let current = FakeSide(batches: false) { model, event in event == 2 ? nil : (model + event, []) }
        let candidate = FakeSide(batches: false) { model, event in event >= 2 && event <= 3 ? nil : (model + event, [])
        }
        let (comparison, found) = try compare(current, candidate, events(1...5), all: true)
        #expect(found.map(\.event.seq) == [3])
        #expect(found.first?.candidate.outcome == .rejected("no"))
        #expect(comparison.currentRejections == 1)
        #expect(comparison.firstCurrentRejection?.seq == 2)
    }

    // MARK: - Options

    @Test func theCommandLineIsChecked() throws {
        let options = try ReplayOptions(arguments: ["--state-dir=s", "--since", "5", "--until=9", "--all", "-c", "x"])
        #expect(options.stateDirectory == "s")
        #expect(options.since == 5 && options.until == 9)
        #expect(options.everyDivergence && options.candidateConfig == "x")
        for (arguments, message) in [
            (["--since", "1"], "--state-dir: is required: the state directory whose journal is replayed"),
            (
                ["--state-dir", "s", "--since", "-1"],
                #"--since: must be a seq: a whole number from 0 to 18446744073709551615, not "-1""#
            ),
            (["--state-dir", "s", "--until"], "--until: needs a value"),
            (
                ["--state-dir", "s", "--since", "+1"],
                #"--since: must be a seq: a whole number from 0 to 18446744073709551615, not "+1""#
            ),
            (
                ["--state-dir", "s", "--until", "99999999999999999999"],
                #"--until: must be a seq: a whole number from 0 to 18446744073709551615, not "99999999999999999999""#
            ),
            (["--state-dir", "s", "--since", "5", "--until", "4"], "--until: is 4, before --since 5"),
            (["--state-dir", "s", "--all=yes"], "--all: takes no value"),
            (["--state-dir", "s", "--socket", "x"], "--socket: unknown option"),
            (
                ["--state-dir", "s", "--log-level", "loud"],
                "--log-level: must be one of error, warning, notice, info, debug"
            ),
        ] {
            let error = #expect(throws: ConfigError.self, "\(arguments)") { try ReplayOptions(arguments: arguments) }
            #expect(error?.description == message, "\(arguments)")
        }
    }
}

extension ModelDiff.Change {
    fileprivate var pointerText: String {
        switch self {
        case .added(let pointer, _), .removed(let pointer, _), .changed(let pointer, _, _): pointer.description
        }
    }
}
