import Synchronization

/// Progress reports of a long recovery (docs/durability.md, "Recovery"): `recovering: 42% (420,000 of 1,000,000
/// events)` in the log and as systemd's `STATUS=`, with `EXTEND_TIMEOUT_USEC=` whenever events were replayed since
/// the report before, so a big journal does not meet the unit's start timeout while a stuck one still does.
enum RecoveryReport {
    /// A ticker that reports `progress` at `ProgressPace`'s times until it is stopped.
    static func ticker(_ progress: ReplayProgress, notifier: SystemdNotifier?, log: DaemonLog) -> ProgressTicker {
        // The count and time of the last report that showed progress.
        let last = Mutex((done: 0, at: UInt64(0)))
        return ProgressTicker(name: "mobiusd-recover") { elapsed in
            let done = progress.done
            let stalledFor = last.withLock { last -> UInt64? in
                guard done > last.done else { return elapsed - last.at }
                last = (done, elapsed)
                return nil
            }
            var text = "recovering: \(progress.summary)"
            if let stalledFor { text += ", no event replayed for \(ProgressPace.seconds(stalledFor))" }
            notifier?.progress(text, extendingBy: stalledFor == nil ? ProgressPace.extendTimeoutMicroseconds : nil)
            log.info("\(text) after \(ProgressPace.seconds(elapsed))")
        }
    }
}
