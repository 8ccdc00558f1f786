import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

@testable import MobiusDaemon

/// The small parts behind past models and progress reports, without a daemon: the progress text, the loop's recent
/// models, the count of events recovery is about to replay, and compaction with `keepSnapshots`.
@Suite("History parts")
struct HistoryPartsTests {
    @Test func progressTextGroupsDigitsAndNeverPassesAHundredPercent() {
        #expect(ProgressLine.summary(done: 420_000, total: 1_000_000) == "42% (420,000 of 1,000,000 events)")
        #expect(ProgressLine.summary(done: 0, total: 3) == "0% (0 of 3 events)")
        #expect(ProgressLine.summary(done: 0, total: 0) == "100% (0 of 0 events)")
        #expect(ProgressLine.summary(done: 12, total: 10) == "100% (12 of 12 events)", "a journal grown since")
        #expect(ProgressLine.grouped(999) == "999" && ProgressLine.grouped(1000) == "1,000")
        let progress = ReplayProgress(total: 4)
        progress.advance()
        progress.advance(by: 2)
        #expect(progress.summary == "75% (3 of 4 events)")
    }

    @Test func recentModelsKeepTheNewestByTheirSeqsGapsIncluded() {
        var models = RecentModels()
        let absent = JSONValue?.none
        #expect(models.model(at: 1) == absent && models.isEmpty)
        models.append([1, 2, 3], lastSeq: 3)
        models.append([10], lastSeq: 10)
        #expect(models.model(at: 2) == 2 && models.model(at: 10) == 10)
        #expect(models.model(at: 4) == absent && models.model(at: 9) == absent, "seqs of passes nobody recorded")
        let many = (11...(10 + RecentModels.limit + 5)).map { JSONValue.number(JSONNumber($0)) }
        models.append(many, lastSeq: UInt64(10 + many.count))
        #expect(models.model(at: 10) == absent && models.model(at: 15) == absent, "the oldest beyond the limit go")
        #expect(
            models.model(at: 16) == 16
                && models.model(at: UInt64(10 + many.count)) == .number(JSONNumber(10 + many.count)))
        models.append([7], lastSeq: 7)
        #expect(models.model(at: 7) == 7 && models.model(at: 16) == absent, "seqs going back start over")
        models.removeAll()
        #expect(models.isEmpty)
    }

    @Test func logStreamsKeepTheLoopsModelsOnlyWhileAStreamCarriesThem() {
        let streams = LogStreams()
        let plain = ConnectionID(1)
        let withModels = ConnectionID(2)
        streams.started(plain)
        streams.committed(models: [1], lastSeq: 1)
        #expect(streams.recentModels.isEmpty, "no stream carries models")
        streams.started(withModels)
        streams.carriesModels(withModels, true)
        streams.committed(models: [2, 3], lastSeq: 3)
        #expect(streams.recentModels.model(at: 3) == 3 && streams.recentModels.model(at: 2) == 2)
        #expect(streams.due == [plain, plain, withModels], "each commit makes every stream due")
        streams.ended(withModels)
        #expect(streams.recentModels.isEmpty, "let go when the last stream with models ends")
        streams.committed(models: [4], lastSeq: 4)
        #expect(streams.recentModels.isEmpty)
    }

    @Test func modelArgumentTakesPathAndAt() throws {
        func parse(_ text: String) -> Result<(path: JSONPointer?, at: UInt64?), ArgumentProblem> {
            RequestArguments.modelArgument(ArraySlice(Array(text.utf8)))
        }
        let both = try parse(#"{"at":7,"path":"/a"}"#).get()
        let pointer = try JSONPointer("/a")
        #expect(both.at == 7 && both.path == pointer)
        #expect(try parse("").get().at == nil)
        #expect(try parse(#"{"at":0}"#).get().at == 0)
        for bad in [#"{"at":-1}"#, #"{"at":2.5}"#, #"{"at":"1"}"#, #"{"at":1,"x":0}"#, "[]"] {
            guard case .failure = parse(bad) else {
                Issue.record("\(bad) was taken")
                continue
            }
        }
    }

    /// Recovery counts the events after the snapshot before it replays them: whole segments by their names, the
    /// last one by walking its records.
    @Test func recoveryCountsTheEventsItWillReplay() throws {
        let directory = try TemporaryDirectory(prefix: "history-count")
        defer { directory.remove() }
        func segment(_ first: UInt64, records: Int) throws -> (firstSeq: UInt64, path: String) {
            var bytes = JournalSegment.header(firstSeq: first)
            for seq in first..<(first + UInt64(records)) {
                JournalRecord.append(seq: seq, time: 0, event: Array(#"{"type":"increment"}"#.utf8), to: &bytes)
            }
            bytes += [UInt8](repeating: 0, count: 4096)
            let path = directory.file(JournalSegment.name(firstSeq: first))
            let fd = try FileDescriptor.create(path)
            defer { fd.close() }
            try fd.writeAll(bytes)
            return (first, path)
        }
        let segments = [try segment(1, records: 10), try segment(11, records: 10), try segment(21, records: 7)]
        #expect(JournalRecovery.countRecords(after: 0, in: segments) == 27)
        #expect(JournalRecovery.countRecords(after: 15, in: segments) == 12)
        #expect(JournalRecovery.countRecords(after: 25, in: segments) == 2)
        #expect(JournalRecovery.countRecords(after: 0, in: []) == 0)
    }
}
