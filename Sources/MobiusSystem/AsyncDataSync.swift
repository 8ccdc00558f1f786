/// An fdatasync the kernel runs in the background (Linux AIO `IOCB_CMD_FDSYNC`, Linux 4.18+), its completion signalled
/// on an eventfd (`completion`) that a reactor watches. A thread that must never block hands the sync to the kernel
/// instead of to a thread of its own: no hand-off to wake and no wake-up back, so a durable one-at-a-time request pays
/// what an fdatasync on its own thread would (Benchmarks/DaemonBench/README.md). One sync at a time.
package final class AsyncDataSync {
    /// Readable when the sync has completed (see `reap`).
    package let completion: EventFD
    private let context: UInt64

    /// Sets up the context and checks that the kernel really syncs in the background by syncing the directory at
    /// `probing` once and waiting up to `timeoutMilliseconds` for it. Fails where the kernel or a seccomp filter does
    /// not offer it (no AIO, or AIO without fsync before Linux 4.18); the caller then syncs on a thread of its own.
    package init(probing directory: String, timeoutMilliseconds: Int32 = 5000) throws(SystemError) {
        completion = try EventFD()
        context = try Syscall.aioSetup().get("io_setup")
        let probe = try FileSystem.openDirectory(directory)
        defer { probe.close() }
        try submit(probe)
        guard
            case .success(true) = Syscall.pollReadable(completion.fd.rawValue, timeoutMilliseconds: timeoutMilliseconds)
        else { throw SystemError(errno: .timedOut, operation: "io_submit fdatasync", subject: probe.description) }
        let outcome = reap(probe)
        completion.drain()
        if case .failure(let error)? = outcome { throw error }
    }

    deinit {
        Syscall.aioDestroy(context)
    }

    /// Starts an fdatasync of `fd`. The descriptor must stay open until `reap` gives the outcome.
    package func submit(_ fd: FileDescriptor) throws(SystemError) {
        try Syscall.aioSubmitDataSync(context, fd.rawValue, completion: completion.fd.rawValue)
            .get("io_submit fdatasync", fd.description)
    }

    /// The outcome of the submitted sync, or `nil` while it is still running. With an outcome, `completion` is
    /// left readable, so that the caller can act on the outcome first (answer the clients waiting for it) and drain
    /// it after (`completion.drain()`, before waiting on it again); with `nil` it has been drained.
    package func reap(_ fd: FileDescriptor) -> Result<Void, SystemError>? {
        if let outcome = collect(fd) { return outcome }
        // Still running: clear the wake-up, then look once more, so that a completion in between is not missed.
        completion.drain()
        return collect(fd)
    }

    private func collect(_ fd: FileDescriptor) -> Result<Void, SystemError>? {
        switch Syscall.aioReap(context) {
        case .failure(let errno): return .failure(SystemError(errno: errno, operation: "io_getevents"))
        case .success(nil): return nil
        case .success(let result?) where result < 0:
            let errno = Errno(rawValue: Int32(truncatingIfNeeded: -result))
            return .failure(SystemError(errno: errno, operation: "fdatasync", subject: fd.description))
        case .success:
            // The seam sees the sync when its outcome is known: a test (or a debug daemon) can fail it like a
            // synchronous fdatasync.
            if case .fail(let errno)? = SystemCallFaults.fault(.fdatasync, fd: fd.rawValue, path: nil) {
                return .failure(SystemError(errno: errno, operation: "fdatasync", subject: fd.description))
            }
            return .success(())
        }
    }
}
