import Glibc

/// The process environment handed to spawned servers.
enum Environment {
    /// `environ`, read once at start-up on the main thread before any thread exists.
    nonisolated(unsafe) static let pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
}
