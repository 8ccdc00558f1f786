import Glibc

/// A plain pthread running one closure: the load generator's writer and reader threads.
struct BenchThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let thread: pthread_t

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
        self.thread = thread
    }

    /// Waits for the closure to return; everything it wrote is visible afterwards.
    func join() {
        pthread_join(thread, nil)
    }
}
