import MobiusTestSupport
import Testing

extension TimeLimitTrait.Duration {
    /// `minutes` times `TestTime.scale`: longer under a sanitizer.
    static func scaled(minutes: Int) -> Self { .minutes(minutes * TestTime.scale) }
}
