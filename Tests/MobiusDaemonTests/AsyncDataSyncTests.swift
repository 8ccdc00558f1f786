import Glibc
import MobiusSystem
import MobiusTestSupport
import Testing

/// `AsyncDataSync`: an fdatasync the kernel runs in the background, with its outcome on an eventfd. Skipped where
/// the kernel offers no AIO fsync (the daemon then syncs on its journal thread; the journal's integration tests check
/// that it says so).
@Suite(.enabled(if: kernelOffersBackgroundSync()))
struct AsyncDataSyncTests {
    private func waitForCompletion(_ sync: AsyncDataSync) -> Bool {
        var waiting = pollfd(fd: sync.completion.fd.rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&waiting, 1, 5000) == 1
    }

    private func isReadable(_ sync: AsyncDataSync) -> Bool {
        var waiting = pollfd(fd: sync.completion.fd.rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&waiting, 1, 0) == 1
    }

    /// Runs `body` with a sync set up on a fresh directory and a file there that holds one record.
    private func withWrittenFile(_ body: (AsyncDataSync, FileDescriptor) throws -> Void) throws {
        let directory = try TemporaryDirectory(prefix: "async-sync")
        defer { directory.remove() }
        let sync = try AsyncDataSync(probing: directory.path)
        let file = try FileDescriptor.openFile(directory.file("data"), .createNew(mode: 0o600))
        defer { file.close() }
        try file.writeAll(Array("record\n".utf8), at: 0)
        try body(sync, file)
    }

    @Test func syncsAFileAndReportsTheOutcomeOnce() throws {
        try withWrittenFile { sync, file in
            #expect(sync.reap(file) == nil, "nothing submitted, nothing to reap")
            try sync.submit(file)
            #expect(waitForCompletion(sync))
            let outcome = try #require(sync.reap(file))
            #expect((try? outcome.get()) != nil, "\(outcome)")
            #expect(isReadable(sync), "the completion stays readable until the caller drains it")
            sync.completion.drain()
            #expect(!isReadable(sync))
            #expect(sync.reap(file) == nil, "one sync, one outcome")
            #expect(!isReadable(sync), "nothing to reap: drained")
        }
    }

    /// The fault seam sees a background sync as `fdatasync` when its outcome is reaped, so a test (or a debug
    /// daemon, `MOBIUSD_DEBUG_SYSCALL_FAULTS`) fails it like a synchronous one.
    @Test func anInjectedFdatasyncFaultFailsTheSync() throws {
        try withWrittenFile { sync, file in
            try sync.submit(file)
            #expect(waitForCompletion(sync))
            let (outcome, record) = FaultInjection.run([Fault(.fdatasync, fd: file, .fail(.ioError))]) {
                sync.reap(file)
            }
            #expect(record.injected.count == 1)
            guard case .failure(let error)? = outcome else {
                Issue.record("the injected fault did not fail the sync: \(String(describing: outcome))")
                return
            }
            #expect(error.errno == .ioError && error.operation == "fdatasync", "\(error)")
        }
    }

    @Test func refusesADescriptorThatCannotBeSynced() throws {
        let directory = try TemporaryDirectory(prefix: "async-sync")
        defer { directory.remove() }
        let sync = try AsyncDataSync(probing: directory.path)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let reader = FileDescriptor(rawValue: ends[0])
        let writer = FileDescriptor(rawValue: ends[1])
        defer {
            reader.close()
            writer.close()
        }
        // A pipe has no fsync: the kernel refuses the request at submission (EINVAL), so it never completes.
        #expect(throws: SystemError.self) { try sync.submit(reader) }
    }
}

private func kernelOffersBackgroundSync() -> Bool {
    guard let directory = try? TemporaryDirectory(prefix: "aio-probe") else { return false }
    defer { directory.remove() }
    return (try? AsyncDataSync(probing: directory.path)) != nil
}
