import MobiusSystem

/// How much longer tests wait under a sanitizer, where everything runs several times slower: time limits and waits
/// for something to happen are multiplied by `scale`. What a test asserts stays the same.
package enum TestTime {
    /// `MOBIUSD_TEST_TIME_SCALE` when it is a whole number from 1 up, else 8 under ASan, 10 under TSan, 1 otherwise.
    package static let scale: Int = {
        if let text = SystemProcess.environment("MOBIUSD_TEST_TIME_SCALE"), let value = Int(text), value >= 1 {
            return value
        }
        switch Sanitizer.current {
        case .address: return 8
        case .thread: return 10
        case nil: return 1
        }
    }()

    /// `duration` times `scale`.
    package static func scaled(_ duration: Duration) -> Duration {
        duration * scale
    }

    /// `nanoseconds` times `scale`.
    package static func scaled(nanoseconds: UInt64) -> UInt64 {
        nanoseconds * UInt64(scale)
    }
}
