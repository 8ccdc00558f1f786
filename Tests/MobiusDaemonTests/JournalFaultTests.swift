import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

@testable import MobiusDaemon

/// The journal writer and recovery with a storage fault injected at each system call they make (ENOSPC, EIO, short
/// writes), through MobiusSystem's fault seam: the documented outcome (docs/durability.md, "Storage failure") is that
/// a pass whose write or fdatasync fails is not acknowledged and is reported with the call's errno, the next pass
/// starts a new segment, and recovery afterwards replays exactly the acknowledged events, none lost and none added.
@Suite("Journal: injected storage faults")
struct JournalFaultTests {
    static let epoch = "00112233445566ff"
    /// One record of `{"n":seq}` for a one-digit seq: 24 bytes of header and 7 of JSON.
    static let recordBytes: Int64 = 31

    /// A state directory as recovery leaves it, and a writer on it.
    final class Journal {
        let directory: TemporaryDirectory
        private let pair: SocketPair
        let writer: JournalWriter

        init(_ policy: DaemonConfig.FsyncPolicy, segmentBytes: Int = 1 << 20) throws {
            directory = try TemporaryDirectory(prefix: "journal-fault")
            pair = try SocketPair()
            let log = DaemonLog(threshold: .error, destination: pair.first)
            let outcome = try JournalRecovery(directory: directory.path, epoch: JournalFaultTests.epoch, log: log)
                .run(restore: { _ in }, replay: { _ in })
            writer = JournalWriter(
                directory: directory.path, catalog: outcome.catalog, segmentBytes: segmentBytes, policy: policy,
                log: log)
        }

        deinit {
            writer.close()
            directory.remove()
            pair.close()
        }

        /// Appends the pass of `seqs`; its error if it failed.
        @discardableResult
        func append(_ seqs: ClosedRange<UInt64>) -> SystemError? {
            var records: [UInt8] = []
            for seq in seqs {
                JournalRecord.append(seq: seq, time: 0, encoding: ["n": .number(JSONNumber(seq))], to: &records)
            }
            do {
                try writer.append(records, firstSeq: seqs.lowerBound, lastSeq: seqs.upperBound)
                return nil
            } catch {
                return error
            }
        }

        var segmentPaths: [String] { writer.catalog.segments.map(\.path) }

        /// What a restart would recover: the snapshot's model and seq, and the seqs replayed after it.
        func recover() throws -> (snapshot: SnapshotFile?, replayed: [UInt64]) {
            writer.close()
            var replayed: [UInt64] = []
            var restored: SnapshotFile?
            let recovery = JournalRecovery(
                directory: directory.path, epoch: JournalFaultTests.epoch, log: DaemonLog(threshold: .error))
            _ = try recovery.run(restore: { restored = $0 }, replay: { batch in replayed += batch.map(\.seq) })
            return (restored, replayed)
        }
    }

    /// The calls a pass that starts a segment makes, and whether a failure of each still lets the pass commit (only
    /// the zero fill of `always` may fail: its records are then appended).
    static func segmentStartCalls(_ policy: DaemonConfig.FsyncPolicy) -> [(SystemCall, tolerated: Bool)] {
        let start: [(SystemCall, Bool)] = [(.stat, false), (.open, false), (.pwrite, false)]
        switch policy {
        case .never: return start + [(.pwrite, false)]
        case .batch: return start + [(.open, false), (.fsync, false), (.pwrite, false)]
        case .always:
            return start + [
                (.open, false), (.fsync, false), (.pwrite, true), (.fdatasync, true), (.pwrite, false),
                (.fdatasync, false),
            ]
        }
    }

    static let faults: [Errno] = [.noSpace, .ioError]

    @Test(
        "a pass that starts the journal: a fault at each call fails it with that errno, but for the zero fill",
        arguments: [DaemonConfig.FsyncPolicy.always, .batch, .never], faults)
    func faultAtEachCallOfTheFirstPass(policy: DaemonConfig.FsyncPolicy, errno: Errno) throws {
        let expected = Self.segmentStartCalls(policy)
        let baseline = try Journal(policy)
        let calls = FaultInjection.calls { #expect(baseline.append(1...2) == nil) }
        try #require(calls.map(\.call) == expected.map(\.0), "the calls of \(policy): \(calls)")
        for (index, (call, tolerated)) in expected.enumerated() {
            let journal = try Journal(policy)
            let (error, record) = FaultInjection.run([Fault(occurrence: index + 1, .fail(errno))]) {
                journal.append(1...2)
            }
            try #require(record.injected.map(\.index) == [index])
            var acknowledged: [UInt64] = []
            if tolerated {
                #expect(error == nil, "\(policy): a failed \(call) of the zero fill does not fail the pass")
                acknowledged = [1, 2]
            } else {
                #expect(error?.errno == errno, "\(policy), \(call) #\(index): the pass fails with the call's errno")
                #expect(journal.append(1...2) == nil, "the same seqs commit once the disk works again")
                acknowledged = [1, 2]
            }
            #expect(journal.append(3...4) == nil)
            acknowledged += [3, 4]
            #expect(try journal.recover().replayed == acknowledged, "\(policy), \(call) #\(index)")
        }
    }

    @Test(
        "a pass to an open segment: a failed pwrite or fdatasync fails it and cuts the segment back; the next starts anew",
        arguments: [DaemonConfig.FsyncPolicy.always, .batch, .never], faults)
    func faultAtEachCallOfALaterPass(policy: DaemonConfig.FsyncPolicy, errno: Errno) throws {
        let baseline = try Journal(policy)
        #expect(baseline.append(1...2) == nil)
        let calls = FaultInjection.calls { #expect(baseline.append(3...4) == nil) }
        try #require(calls.map(\.call) == (policy == .always ? [.pwrite, .fdatasync] : [.pwrite]))
        for index in calls.indices {
            let journal = try Journal(policy)
            #expect(journal.append(1...2) == nil)
            let first = try #require(journal.segmentPaths.first)
            let (error, _) = FaultInjection.run([Fault(occurrence: index + 1, .fail(errno))]) { journal.append(3...4) }
            #expect(error?.errno == errno, "\(policy), \(calls[index])")
            #expect(
                try FileSystem.fileSize(first) == 16 + 2 * Self.recordBytes,
                "\(policy), \(calls[index]): cut back to the committed passes")
            #expect(journal.append(3...4) == nil)
            #expect(journal.segmentPaths.count == 2, "the pass after the failure starts a new segment")
            #expect(try journal.recover().replayed == [1, 2, 3, 4])
        }
    }

    @Test(
        "a pass that moves on to a new segment: a fault at each call fails it and leaves the full segment whole",
        arguments: [DaemonConfig.FsyncPolicy.always, .batch, .never])
    func faultAtEachCallOfARotation(policy: DaemonConfig.FsyncPolicy) throws {
        let expected = Self.segmentStartCalls(policy)
        for (index, (call, tolerated)) in expected.enumerated() {
            // Two records fill a 40-byte segment: the next pass starts another.
            let journal = try Journal(policy, segmentBytes: 40)
            #expect(journal.append(1...2) == nil)
            let (error, record) = FaultInjection.run([Fault(occurrence: index + 1, .fail(.noSpace))]) {
                journal.append(3...3)
            }
            #expect(record.calls.prefix(index + 1).map(\.call) == expected.prefix(index + 1).map(\.0), "\(policy)")
            var acknowledged: [UInt64] = [1, 2]
            if tolerated {
                #expect(error == nil, "\(policy): a failed \(call) of the zero fill does not fail the pass")
            } else {
                #expect(error?.errno == .noSpace, "\(policy), \(call) #\(index)")
                #expect(journal.append(3...3) == nil)
            }
            acknowledged.append(3)
            #expect(journal.append(4...4) == nil)
            acknowledged.append(4)
            #expect(try journal.recover().replayed == acknowledged, "\(policy), \(call) #\(index)")
        }
    }

    @Test("a short pwrite is continued: every pass commits whole, whichever of its writes comes up short")
    func shortWritesAreContinued() throws {
        for policy in [DaemonConfig.FsyncPolicy.always, .batch, .never] {
            let writes = Self.segmentStartCalls(policy).filter { $0.0 == .pwrite }.count
            for occurrence in 1...writes {
                let journal = try Journal(policy)
                let fault = Fault(.pwrite, occurrence: occurrence, .shortTransfer(5))
                let (error, record) = FaultInjection.run([fault]) { journal.append(1...2) }
                #expect(error == nil, "\(policy), pwrite #\(occurrence)")
                #expect(
                    record.calls.filter { $0.call == .pwrite }.count == writes + 1,
                    "\(policy), pwrite #\(occurrence): the rest is written by one more pwrite")
                #expect(journal.append(3...4) == nil)
                #expect(try journal.recover().replayed == [1, 2, 3, 4], "\(policy), pwrite #\(occurrence)")
            }
        }
    }

    @Test("a short pwrite and then ENOSPC: the torn record is cut off and the pass fails")
    func shortWriteThenNoSpace() throws {
        for policy in [DaemonConfig.FsyncPolicy.always, .batch, .never] {
            let journal = try Journal(policy)
            #expect(journal.append(1...2) == nil)
            let first = try #require(journal.segmentPaths.first)
            let (error, _) = FaultInjection.run([
                Fault(.pwrite, occurrence: 1, .shortTransfer(10)), Fault(.pwrite, occurrence: 2, .fail(.noSpace)),
            ]) { journal.append(3...4) }
            #expect(error?.errno == .noSpace, "\(policy)")
            #expect(try FileSystem.fileSize(first) == 16 + 2 * Self.recordBytes, "\(policy): the torn bytes are cut")
            #expect(journal.append(3...4) == nil)
            #expect(try journal.recover().replayed == [1, 2, 3, 4], "\(policy)")
        }
    }

    @Test("a failed fdatasync whose cut-back fails too: recovery drops the undone records")
    func failedSyncAndFailedCutBack() throws {
        let journal = try Journal(.always)
        #expect(journal.append(1...2) == nil)
        let first = try #require(journal.segmentPaths.first)
        let (error, record) = FaultInjection.run([
            Fault(.fdatasync, .fail(.ioError)), Fault(.ftruncate, .fail(.ioError)), Fault(.fsync, .fail(.ioError)),
        ]) { journal.append(3...4) }
        #expect(error?.errno == .ioError)
        #expect(record.injected.count == 3, "the sync, the cut and its sync all failed: \(record.calls)")
        #expect(journal.append(3...4) == nil, "the same seqs go to a new segment")
        #expect(try journal.recover().replayed == [1, 2, 3, 4], "the undone 3 and 4 are not replayed twice")
        #expect(try FileSystem.fileSize(first) == 16 + 2 * Self.recordBytes, "recovery cut them off")
    }

    @Test("batch: a failed background fdatasync moves the next pass to a new segment; nothing written is lost")
    func failedBatchSync() throws {
        let journal = try Journal(.batch)
        #expect(journal.append(1...2) == nil)
        let (_, record) = FaultInjection.run([Fault(.fdatasync, .fail(.ioError))]) {
            journal.writer.synchronizePending()
        }
        #expect(record.injected.count == 1)
        #expect(journal.append(3...4) == nil)
        #expect(journal.segmentPaths.count == 2, "the pages whose write-back failed are not synced again")
        #expect(try journal.recover().replayed == [1, 2, 3, 4])
    }

    /// The model of a journal of `{"n":seq}` events: the sum of the seqs.
    static func model(_ recovered: (snapshot: SnapshotFile?, replayed: [UInt64])) -> UInt64 {
        let base = recovered.snapshot.flatMap { $0.model.int64Value.map(UInt64.init) } ?? 0
        return base + recovered.replayed.reduce(0, +)
    }

    @Test(
        "a snapshot: a fault at each call fails it, leaves no partial snapshot, and recovery gives the same model",
        arguments: faults)
    func faultAtEachCallOfASnapshot(errno: Errno) throws {
        let snapshot = SnapshotFile(epoch: Self.epoch, seq: 4, time: 0, model: .number(JSONNumber(10)))
        let baseline = try Journal(.batch)
        #expect(baseline.append(1...4) == nil)
        let calls = try FaultInjection.calls { try baseline.writer.writeSnapshot(snapshot) }
        try #require(calls.map(\.call) == [.unlink, .open, .pwrite, .fsync, .rename, .open, .fsync], "\(calls)")
        for index in calls.indices {
            let journal = try Journal(.batch)
            #expect(journal.append(1...4) == nil)
            let (error, record) = FaultInjection.run([Fault(occurrence: index + 1, .fail(errno))]) {
                () -> SystemError? in
                do throws(SystemError) {
                    try journal.writer.writeSnapshot(snapshot)
                    return nil
                } catch {
                    return error
                }
            }
            try #require(record.injected.map(\.index) == [index])
            #expect(error?.errno == errno, "\(calls[index]): the snapshot fails with the call's errno")
            // Only a failed rename leaves the temporary file (whole); the next snapshot or start-up removes it.
            let temporary = journal.directory.file(SnapshotFile.temporaryName)
            #expect(FileSystem.exists(temporary) == (calls[index].call == .rename), "\(calls[index]): snapshot.tmp")
            let renamed = index > calls.firstIndex { $0.call == .rename }!
            #expect(
                FileSystem.exists(journal.directory.file(SnapshotFile.name(seq: 4))) == renamed,
                "\(calls[index]): the snapshot is there only once renamed")
            #expect(journal.append(5...5) == nil)
            let recovered = try journal.recover()
            #expect(Self.model(recovered) == 15, "\(calls[index]): the same model")
            #expect(recovered.replayed.last == 5)
            #expect(!FileSystem.exists(temporary), "start-up removes snapshot.tmp")
        }
    }

    @Test("recovery: an EIO at each call stops start-up or recovers the same model; it never cuts a record off")
    func faultAtEachCallOfRecovery() throws {
        let journal = try Journal(.always, segmentBytes: 100)
        for seq in UInt64(1)...6 { #expect(journal.append(seq...seq) == nil) }
        _ = try SnapshotFile(epoch: Self.epoch, seq: 2, time: 0, model: .number(JSONNumber(3)))
            .write(into: journal.directory.path)
        let expected = try journal.recover()
        #expect(Self.model(expected) == 21 && expected.snapshot?.seq == 2)
        let sizes = try journal.segmentPaths.map { try FileSystem.fileSize($0) }
        let calls = FaultInjection.calls { _ = try? journal.recover() }
        #expect(calls.count > 8, "\(calls)")
        for index in calls.indices {
            let (outcome, _) = FaultInjection.run([Fault(occurrence: index + 1, .fail(.ioError))]) {
                Result { try journal.recover() }
            }
            // A snapshot that cannot be read is passed over for the journal before it: the same model either way.
            if case .success(let recovered) = outcome {
                #expect(Self.model(recovered) == 21, "\(calls[index]) #\(index)")
                #expect(recovered.replayed.last == 6, "\(calls[index]) #\(index)")
            }
            #expect(
                try journal.segmentPaths.map { try FileSystem.fileSize($0) } == sizes,
                "\(calls[index]) #\(index): no segment was cut")
            let again = try journal.recover()
            #expect(again.replayed == expected.replayed && Self.model(again) == 21, "\(calls[index]) #\(index)")
        }
    }
}
