/// What a pass counts for `metrics` beyond what `LoopState` holds: applied events from sources other than clients,
/// and rejections by code and source. A pass holds one only once it has something to count (`PassWork.counts`), so
/// a pass of clients' events that all apply carries none.
struct PassCounts {
    var acceptedElsewhere = SourceCounts()
    var rejected: [RejectionKey: UInt64] = [:]
}
