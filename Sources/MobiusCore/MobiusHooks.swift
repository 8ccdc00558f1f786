import Synchronization

/// Where the library reports programmer errors (misuse such as dispatching to a disposed loop).
///
/// The default handler traps with the message. Tests replace it, either for the current task with
/// `withErrorHandler(_:operation:)` (safe under parallel tests) or process-wide with `setErrorHandler(_:)`.
/// A replaced handler that returns makes the misused call a no-op.
public enum MobiusHooks {
    /// Receives a misuse report: the message, and the file and line of the library call that detected it.
    public typealias ErrorHandler = @Sendable (String, StaticString, UInt) -> Void

    private static let global = Mutex<ErrorHandler>(defaultErrorHandler)

    @TaskLocal private static var scoped: ErrorHandler?

    /// Replaces the process-wide error handler.
    public static func setErrorHandler(_ handler: @escaping ErrorHandler) {
        global.withLock { $0 = handler }
    }

    /// Restores the process-wide default, which traps.
    public static func setDefaultErrorHandler() {
        global.withLock { $0 = defaultErrorHandler }
    }

    /// Runs `operation` with `handler` receiving misuse reports raised on this task or thread.
    public static func withErrorHandler<Result>(
        _ handler: @escaping ErrorHandler,
        operation: () throws -> Result
    ) rethrows -> Result {
        try $scoped.withValue(handler, operation: operation)
    }

    /// Reports a programmer error to the current handler.
    public static func errorHandler(_ message: String, _ file: StaticString = #file, _ line: UInt = #line) {
        let handler = scoped ?? global.withLock { $0 }
        handler(message, file, line)
    }

    @Sendable private static func defaultErrorHandler(_ message: String, _ file: StaticString, _ line: UInt) {
        fatalError(message, file: file, line: line)
    }
}
