import MobiusCore

/// A check on the `Next` an update function returned.
public typealias NextPredicate<Model, Effect> = Predicate<Next<Model, Effect>>

/// Passes when the `Next` carries a model, whatever it is.
public func hasModel<Model, Effect>(file: StaticString = #file, line: UInt = #line) -> NextPredicate<Model, Effect> {
    { next in
        next.model != nil
            ? .success : .failure(message: "hasModel failed: expected a model, got none", file: file, line: line)
    }
}

/// Passes when the `Next` carries a model equal to `expected`; fails with a diff when it differs or is missing.
public func hasModel<Model: Equatable, Effect>(
    _ expected: Model, file: StaticString = #file, line: UInt = #line
) -> NextPredicate<Model, Effect> {
    { next in
        guard let actual = next.model else {
            return .failure(
                message: "hasModel failed: expected a model, got none\nexpected:\n\(LineDiff.render(expected))",
                file: file, line: line)
        }
        guard actual != expected else { return .success }
        return .failure("hasModel", "model differs", expected: expected, actual: actual, file: file, line: line)
    }
}

/// Passes when the `Next` carries no model (the update left the model unchanged).
public func hasNoModel<Model, Effect>(file: StaticString = #file, line: UInt = #line) -> NextPredicate<Model, Effect> {
    { next in
        guard let actual = next.model else { return .success }
        return .failure(
            message: "hasNoModel failed: expected no model, got:\n\(LineDiff.render(actual))", file: file, line: line)
    }
}

/// Passes when every effect in `expected` was dispatched, in any order; other effects may be dispatched too.
public func hasEffects<Model, Effect: Equatable>(
    _ expected: [Effect], file: StaticString = #file, line: UInt = #line
) -> NextPredicate<Model, Effect> {
    { next in EffectListCheck.contains(expected, in: next.effects, file: file, line: line) }
}

/// Passes when exactly the effects in `expected` were dispatched, in any order (duplicates count).
public func hasOnlyEffects<Model, Effect: Equatable>(
    _ expected: [Effect], file: StaticString = #file, line: UInt = #line
) -> NextPredicate<Model, Effect> {
    { next in EffectListCheck.sameMultiset(expected, next.effects, file: file, line: line) }
}

/// Passes when the effects dispatched are `expected`, in the same order.
public func hasExactlyEffects<Model, Effect: Equatable>(
    _ expected: [Effect], file: StaticString = #file, line: UInt = #line
) -> NextPredicate<Model, Effect> {
    { next in EffectListCheck.exactly(expected, next.effects, file: file, line: line) }
}

/// Passes when no effects were dispatched.
public func hasNoEffects<Model, Effect>(file: StaticString = #file, line: UInt = #line) -> NextPredicate<Model, Effect>
{
    { next in EffectListCheck.none(next.effects, file: file, line: line) }
}

/// Passes when the `Next` carries neither a model nor effects (`Next.noChange`).
public func hasNothing<Model, Effect>(file: StaticString = #file, line: UInt = #line) -> NextPredicate<Model, Effect> {
    { next in
        guard next.model != nil || next.hasEffects else { return .success }
        return .failure(
            "hasNothing", "expected no model and no effects", expected: Next<Model, Effect>.noChange, actual: next,
            file: file, line: line)
    }
}
