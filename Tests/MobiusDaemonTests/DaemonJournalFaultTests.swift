import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

@testable import MobiusDaemon

/// DaemonJournal as the loop's commit hook, with a storage fault injected into the pass's write: the documented
/// outcome (docs/durability.md, "Storage failure") is that every event of the pass gets `StorageFailure` and no
/// seq, `state.storageFailures` counts it, seq goes on without a gap, and a restart recovers the same model.
@Suite("Journal: passes through DaemonJournal with injected storage faults")
struct DaemonJournalFaultTests {
    /// A loop on the counting app whose commit hook is a journal on `directory`, recovered from what is there.
    func journaledLoop(
        _ directory: TemporaryDirectory, _ policy: DaemonConfig.FsyncPolicy
    ) throws -> (DaemonJournal, LoopHarness<JSONValue, JSONValue, JSONValue>) {
        var settings = JournalSettings()
        settings.fsync = policy
        let journal = try DaemonJournal.open(
            settings: settings, path: directory.path, log: DaemonLog(threshold: .error))
        let timeline = Timeline()
        let harness = try LoopHarness.withEffects(
            countingApp(recordingOn: timeline), timeline: timeline, journal: journal)
        try journal.recover(into: harness.loop)
        return (journal, harness)
    }

    /// Closes the journal and releases the state directory's lock, as the end of the process would.
    func shutDown(_ journal: DaemonJournal) {
        journal.close()
        journal.directory?.lockFile.close()
    }

    @Test(
        "a failed pwrite fails the pass with StorageFailure, and the next pass takes its seqs",
        arguments: [DaemonConfig.FsyncPolicy.batch, .never], [Errno.noSpace, .ioError])
    func failedWriteIsAStorageFailure(policy: DaemonConfig.FsyncPolicy, errno: Errno) throws {
        let directory = try TemporaryDirectory(prefix: "journal-daemon")
        defer { directory.remove() }
        let (journal, harness) = try journaledLoop(directory, policy)
        let timeline = harness.timeline
        harness.run([clientEvent(Counting.add, line: 1)])
        #expect(timeline.answers.last == .ack(1))
        timeline.clear()

        let (_, record) = FaultInjection.run([Fault(.pwrite, .fail(errno))]) {
            harness.run([clientEvent(Counting.add, line: 2), clientEvent(Counting.add, line: 3)])
        }
        #expect(record.injected.count == 1, "\(record.calls)")
        #expect(timeline.answers.count == 2)
        for answer in timeline.answers {
            #expect(answer.errorCode == "StorageFailure")
            #expect(answer.errorMessage?.contains(errno.description) == true, "\(answer)")
        }
        #expect(timeline.models.isEmpty && timeline.effects.isEmpty, "nothing of the failed pass leaves")
        #expect(journal.storageFailures == 1)
        #expect(journal.committedSeq == 1)
        timeline.clear()

        harness.run([clientEvent(Counting.add, line: 4)])
        #expect(timeline.answers == [.ack(2)], "seq goes on without a gap")
        #expect(harness.loop.currentModelJSON() == 2)
        shutDown(journal)

        let (restarted, again) = try journaledLoop(directory, policy)
        defer { shutDown(restarted) }
        #expect(again.loop.currentModelJSON() == 2, "a restart recovers the model the clients saw acknowledged")
        #expect(restarted.committedSeq == 2)
    }
}
