/// An episode of not accepting because the process (EMFILE) or the system (ENFILE) ran out of descriptors: the
/// listener leaves the epoll set until a descriptor is freed or a short retry timer fires, and the episode is
/// logged once when it starts and once when it ends, with how many retries failed in between.
struct AcceptPause {
    /// When the episode began (monotonic nanoseconds).
    let startedAt: UInt64
    /// The errno text that began it.
    let reason: String
    /// Retries that failed again.
    var failedRetries = 0
    /// The retry timer while one is scheduled.
    var retryTimer: ReactorTimers.ID?

    /// How long to wait before trying again when no descriptor is freed meanwhile.
    static let retryNanoseconds: UInt64 = 250_000_000
}
