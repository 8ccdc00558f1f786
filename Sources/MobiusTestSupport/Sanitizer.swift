import MobiusSystem

/// The sanitizer the binaries under test were built with, if any (make sanitize; docs/reliability.md, "Sanitizers").
package enum Sanitizer: String {
    case address
    case thread

    /// The tests' own (the `ASan` and `TSan` traits), else `MOBIUSD_TEST_SANITIZER` (`address` or `thread`: a normal
    /// test build run against sanitized binaries, as make test does), else `nil`.
    package static let current: Sanitizer? = {
        #if TSan
            return .thread
        #elseif ASan
            return .address
        #else
            return SystemProcess.environment("MOBIUSD_TEST_SANITIZER").flatMap(Sanitizer.init(rawValue:))
        #endif
    }()

    /// Whether a process's RSS holds more than its own memory: the sanitizer's shadow memory, and ASan's quarantine of
    /// freed blocks, count too. Tests check bounds on RSS only when this is false.
    package static var inflatesMemory: Bool { current != nil }
}
