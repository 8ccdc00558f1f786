import MobiusCore

/// An `UpdateSpec` assertion that checks the last `Next` against every predicate and reports each failure.
///
/// - Parameter failFunction: where failures go; the default records them in the running test.
public func assertThatNext<Model, Event, Effect>(
    _ predicates: NextPredicate<Model, Effect>...,
    failFunction: @escaping AssertionFailure = failTest
) -> UpdateSpec<Model, Event, Effect>.Assert {
    { result in report(predicates.map { $0(result.lastNext) }, to: failFunction) }
}

/// An `InitSpec` assertion that checks the `First` against every predicate and reports each failure.
///
/// - Parameter failFunction: where failures go; the default records them in the running test.
public func assertThatFirst<Model, Effect>(
    _ predicates: FirstPredicate<Model, Effect>...,
    failFunction: @escaping AssertionFailure = failTest
) -> InitSpec<Model, Effect>.Assert {
    { result in report(predicates.map { $0(result.first) }, to: failFunction) }
}

private func report(_ results: [PredicateResult], to failFunction: AssertionFailure) {
    for case .failure(let message, let file, let line) in results {
        failFunction(message, file, line)
    }
}
