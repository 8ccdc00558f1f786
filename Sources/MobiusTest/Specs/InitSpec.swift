import MobiusCore

/// A given/when/then test of an initiate function.
///
/// ```swift
/// InitSpec(initiate)
///     .when(Model(loggedIn: false))
///     .then(assertThatFirst(hasModel(Model(loggedIn: false)), hasEffects([.loadSession])))
/// ```
///
/// Deliberately not `Sendable`: a spec holds the initiate closure and is used within one test.
public struct InitSpec<Model, Effect> {
    /// Checks the outcome of the `when` step; build one with `assertThatFirst(...)` or write your own.
    public typealias Assert = (Result) -> Void

    private let initiate: Initiate<Model, Effect>

    /// Creates a spec for `initiate`.
    public init(_ initiate: @escaping Initiate<Model, Effect>) {
        self.initiate = initiate
    }

    /// Runs the initiate function on `model`.
    public func when(_ model: Model) -> Then {
        Then(result: Result(first: initiate(model)))
    }

    /// The spec after initiate ran; `then` checks the outcome.
    public struct Then {
        let result: Result

        /// Runs `assert` on the outcome.
        public func then(_ assert: Assert) {
            assert(result)
        }
    }

    /// The outcome of the `when` step.
    public struct Result {
        /// What the initiate function returned.
        public let first: First<Model, Effect>
    }
}
