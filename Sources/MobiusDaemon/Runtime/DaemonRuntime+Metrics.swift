import MobiusCore
import MobiusSystem

extension DaemonRuntime {
    /// Answers `metrics`: the figures are copied here, on the reactor thread, and the text is built on the worker
    /// thread (with a fresh RSS reading), then handed back to `reply` on the reactor thread.
    func answerMetrics(_ format: MetricsFormat, reply: @escaping ([UInt8]) -> Void) {
        let sample = UncheckedSendable(value: metricsSample())
        let answer = UncheckedSendable(value: reply)
        let waker = reactor.waker
        let stats = self.stats
        worker.submit {
            var sample = sample.value
            sample.residentBytes = SystemProcess.residentBytes()
            stats.residentBytes.store(sample.residentBytes, ordering: .relaxed)
            let text = MetricsExposition.render(sample, format: format)
            waker.post { answer.value(text) }
        }
    }

    /// Every figure of `metrics` as it is now (reactor thread).
    func metricsSample() -> MetricsSample {
        let counters = loop.metrics
        // The passes of this round so far are counted too.
        if counters.hasEndedPasses { counters.timeEndedPasses(now: SystemProcess.monotonicNanoseconds()) }
        var accepted = counters.acceptedElsewhere
        accepted[.client] = loop.state.accepted &- accepted.total
        var rejected = counters.rejected
        let undecodable = stats.undecodable.withLock { $0 }
        for kind in EventSourceKind.allCases where undecodable[kind] > 0 {
            rejected[RejectionKey(code: .invalidEvent, source: kind), default: 0] += undecodable[kind]
        }
        var depths = SourceCounts()
        for (kind, depth) in loop.queueDepths() { depths[kind] = UInt64(depth) }
        var dropped = SourceCounts()
        for (kind, count) in loop.droppedByInboxes() { dropped[kind] = count }
        let audience = loop.audienceBeforePass
        return MetricsSample(
            app: loop.app.name, version: MobiusDaemon.version, epoch: journal.epoch, seq: loop.state.seq,
            uptimeSeconds: Double(SystemProcess.monotonicNanoseconds() - stats.startedAt) / 1e9,
            accepted: accepted, rejected: rejected, passLatency: counters.passLatency.sample,
            commitLatency: counters.commitLatency.sample,
            fdatasyncLatency: journal.writer?.fdatasyncSample ?? .empty, queueDepths: depths,
            queueCapacity: loop.capacity, droppedByInboxes: dropped, subscribers: audience.subscriptions.count,
            monitors: audience.monitors.count, connections: server.connectionCount,
            unhandledEffects: stats.unhandledEffects.load(ordering: .relaxed),
            plugins: plugins.runners.map(\.metricsSample), journal: journal.metricsSample)
    }
}
