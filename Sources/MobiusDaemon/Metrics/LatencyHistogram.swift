/// Latencies counted into fixed buckets, owned by one thread (the reactor's): observing one is a few compares and
/// two additions, with no lock, no allocation and no exclusivity check (the counts live in memory allocated once).
final class LatencyHistogram {
    /// The buckets' upper bounds in nanoseconds, 10 µs to 10 s in steps of 1, 2.5, 5; above the last is `+Inf`.
    static let bounds: [UInt64] = [
        10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
        1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000,
        100_000_000, 250_000_000, 500_000_000, 1_000_000_000, 2_500_000_000, 5_000_000_000, 10_000_000_000,
    ]

    /// Per bucket (not cumulative), then the `+Inf` bucket, then the sum of the observations in nanoseconds.
    private let counts: UnsafeMutableBufferPointer<UInt64>
    /// `bounds`, copied where reading it takes neither a global's lazy initialization nor a reference count.
    private let limits: UnsafeMutableBufferPointer<UInt64>
    /// For each power of two 2^k, the first bucket a value of at least 2^k can fall in: an observation starts
    /// its search there and moves on at most twice (the bounds grow by 2 or 2.5 from one to the next).
    private let firstCandidate: UnsafeMutableBufferPointer<Int>

    init() {
        counts = .allocate(capacity: Self.bounds.count + 2)
        counts.initialize(repeating: 0)
        limits = .allocate(capacity: Self.bounds.count)
        _ = limits.initialize(from: Self.bounds)
        firstCandidate = .allocate(capacity: 64)
        for power in 0..<64 {
            firstCandidate[power] = Self.bounds.firstIndex { $0 >= UInt64(1) << power } ?? Self.bounds.count
        }
    }

    deinit {
        counts.deallocate()
        limits.deallocate()
        firstCandidate.deallocate()
    }

    /// Counts one observation of `nanoseconds`.
    func observe(_ nanoseconds: UInt64) {
        var index = nanoseconds == 0 ? 0 : firstCandidate[63 - nanoseconds.leadingZeroBitCount]
        while index < limits.count && nanoseconds > limits[index] { index += 1 }
        counts[index] &+= 1
        counts[limits.count + 1] &+= nanoseconds
    }

    /// Counts the time from `start` (monotonic nanoseconds) to now.
    func observe(since start: UInt64, now: UInt64) {
        observe(now >= start ? now - start : 0)
    }

    /// The counts as they are now, to be rendered on another thread.
    var sample: HistogramSample {
        let buckets = Self.bounds.count + 1
        return HistogramSample(counts: Array(counts[0..<buckets]), sumNanoseconds: counts[buckets])
    }
}

/// A copy of a `LatencyHistogram`'s counts.
struct HistogramSample: Sendable, Equatable {
    /// Per bucket of `LatencyHistogram.bounds`, then `+Inf`; not cumulative.
    var counts: [UInt64]
    var sumNanoseconds: UInt64

    /// An empty histogram.
    static var empty: HistogramSample {
        HistogramSample(counts: Array(repeating: 0, count: LatencyHistogram.bounds.count + 1), sumNanoseconds: 0)
    }

    var count: UInt64 { counts.reduce(0, &+) }
}
