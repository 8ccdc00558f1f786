internal import CLinux
internal import Glibc

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
        var created: UInt64 = 0
        let status = mobiusd_aio_setup(1, &created)
        guard status == 0 else { throw SystemError(errno: -status, operation: "io_setup") }
        context = created
        let probe = try FileSystem.openDirectory(directory)
        defer { probe.close() }
        try submit(probe)
        var waiting = pollfd(fd: completion.fd.rawValue, events: Int16(POLLIN), revents: 0)
        guard retryingOnInterrupt({ poll(&waiting, 1, timeoutMilliseconds) }) == 1 else {
            throw SystemError(errno: ETIMEDOUT, operation: "io_submit fdatasync", subject: probe.description)
        }
        let outcome = reap(probe)
        completion.drain()
        if case .failure(let error)? = outcome { throw error }
    }

    deinit {
        mobiusd_aio_destroy(context)
    }

    /// Starts an fdatasync of `fd`. The descriptor must stay open until `reap` gives the outcome.
    package func submit(_ fd: FileDescriptor) throws(SystemError) {
        let status = mobiusd_aio_submit_fdsync(context, fd.rawValue, completion.fd.rawValue)
        guard status == 0 else {
            throw SystemError(errno: -status, operation: "io_submit fdatasync", subject: fd.description)
        }
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
        var result: Int64 = 0
        let reaped = mobiusd_aio_reap(context, &result)
        if reaped < 0 { return .failure(SystemError(errno: -reaped, operation: "io_getevents")) }
        guard reaped == 1 else { return nil }
        guard result >= 0 else {
            let errno = Int32(truncatingIfNeeded: -result)
            return .failure(SystemError(errno: errno, operation: "fdatasync", subject: fd.description))
        }
        return .success(())
    }
}
