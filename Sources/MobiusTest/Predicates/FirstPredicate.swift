import MobiusCore

/// A check on the `First` an initiate function returned.
public typealias FirstPredicate<Model, Effect> = Predicate<First<Model, Effect>>

/// Passes when the `First` model equals `expected`; fails with a diff otherwise.
public func hasModel<Model: Equatable, Effect>(
    _ expected: Model, file: StaticString = #file, line: UInt = #line
) -> FirstPredicate<Model, Effect> {
    { first in
        guard first.model != expected else { return .success }
        return .failure("hasModel", "model differs", expected: expected, actual: first.model, file: file, line: line)
    }
}

/// Passes when every effect in `expected` is among the start-up effects, in any order; others may be there too.
public func hasEffects<Model, Effect: Equatable>(
    _ expected: [Effect], file: StaticString = #file, line: UInt = #line
) -> FirstPredicate<Model, Effect> {
    { first in EffectListCheck.contains(expected, in: first.effects, file: file, line: line) }
}

/// Passes when the start-up effects are exactly `expected`, in any order (duplicates count).
public func hasOnlyEffects<Model, Effect: Equatable>(
    _ expected: [Effect], file: StaticString = #file, line: UInt = #line
) -> FirstPredicate<Model, Effect> {
    { first in EffectListCheck.sameMultiset(expected, first.effects, file: file, line: line) }
}

/// Passes when the start-up effects are `expected`, in the same order.
public func hasExactlyEffects<Model, Effect: Equatable>(
    _ expected: [Effect], file: StaticString = #file, line: UInt = #line
) -> FirstPredicate<Model, Effect> {
    { first in EffectListCheck.exactly(expected, first.effects, file: file, line: line) }
}

/// Passes when there are no start-up effects.
public func hasNoEffects<Model, Effect>(file: StaticString = #file, line: UInt = #line) -> FirstPredicate<Model, Effect>
{
    { first in EffectListCheck.none(first.effects, file: file, line: line) }
}
