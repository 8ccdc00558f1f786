internal import CLinux
internal import Glibc

/// Starts a named POSIX thread running a closure. The daemon's loop and I/O threads are these (no Foundation).
package enum SystemThread {
    private final class Start {
        let name: String
        let body: () -> Void
        init(_ name: String, _ body: @escaping () -> Void) {
            self.name = String(name.prefix(15))
            self.body = body
        }
    }

    /// Runs `body` on a new detached thread.
    package static func spawn(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        let start = Unmanaged.passRetained(Start(name, body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { raw in
                let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
                start.name.withCString { mobiusd_set_thread_name($0) }
                start.body()
                return nil
            }, start)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            throw SystemError(errno: result, operation: "pthread_create", subject: name)
        }
        pthread_detach(thread)
    }
}

extension SystemThread {
    /// An identifier of the calling thread (`pthread_self`), to tell whether code runs on a given thread.
    package static var currentID: UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
    }
}
