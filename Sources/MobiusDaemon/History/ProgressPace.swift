/// When long work reports how far it has got: first after a second (shorter work says nothing), then every few
/// seconds, so a log shows a line every few seconds and systemd hears from a long start before its timeout.
enum ProgressPace {
    /// Work that ends sooner reports nothing.
    static var firstReportNanoseconds: UInt64 { 1_000_000_000 }
    /// Between two reports.
    static var intervalNanoseconds: UInt64 { 3_000_000_000 }
    /// `EXTEND_TIMEOUT_USEC` sent with a report that shows progress: the time in which systemd is to hear again,
    /// a few intervals, so one late report does not end the start. A report that shows none extends nothing, so a
    /// replay stuck in the app's update still meets the unit's start timeout.
    static var extendTimeoutMicroseconds: UInt64 { 10_000_000 }

    /// Whole seconds of `nanoseconds`, for a report (`3 s`).
    static func seconds(_ nanoseconds: UInt64) -> String {
        "\(nanoseconds / 1_000_000_000) s"
    }
}
