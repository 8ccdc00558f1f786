/// The effect-list comparisons shared by the `Next` and `First` predicates.
enum EffectListCheck {
    /// Every expected effect is present (as many times as expected), in any order; extra effects are allowed.
    static func contains<Effect: Equatable>(
        _ expected: [Effect], in actual: [Effect], file: StaticString, line: UInt
    ) -> PredicateResult {
        let (missing, _) = match(expected, actual)
        guard !missing.isEmpty else { return .success }
        return .failure(
            "hasEffects", "missing \(describe(missing))", expected: expected, actual: actual, file: file, line: line)
    }

    /// The same effects as expected, as many times each, in any order, and nothing else.
    static func sameMultiset<Effect: Equatable>(
        _ expected: [Effect], _ actual: [Effect], file: StaticString, line: UInt
    ) -> PredicateResult {
        let (missing, unexpected) = match(expected, actual)
        guard !missing.isEmpty || !unexpected.isEmpty else { return .success }
        var problems: [String] = []
        if !missing.isEmpty { problems.append("missing \(describe(missing))") }
        if !unexpected.isEmpty { problems.append("unexpected \(describe(unexpected))") }
        return .failure(
            "hasOnlyEffects", problems.joined(separator: ", "), expected: expected, actual: actual, file: file,
            line: line)
    }

    /// The same effects in the same order.
    static func exactly<Effect: Equatable>(
        _ expected: [Effect], _ actual: [Effect], file: StaticString, line: UInt
    ) -> PredicateResult {
        guard expected != actual else { return .success }
        return .failure(
            "hasExactlyEffects", "effects differ", expected: expected, actual: actual, file: file, line: line)
    }

    /// No effects at all.
    static func none<Effect>(_ actual: [Effect], file: StaticString, line: UInt) -> PredicateResult {
        guard !actual.isEmpty else { return .success }
        return .failure(
            "hasNoEffects", "expected no effects, got \(actual.count)", expected: [Effect](), actual: actual,
            file: file, line: line)
    }

    /// Pairs equal effects one to one: what `expected` has that `actual` lacks, and what is left over in `actual`.
    static func match<Effect: Equatable>(
        _ expected: [Effect], _ actual: [Effect]
    ) -> (
        missing: [Effect], unexpected: [Effect]
    ) {
        var pool = actual
        var missing: [Effect] = []
        for effect in expected {
            if let index = pool.firstIndex(of: effect) {
                pool.remove(at: index)
            } else {
                missing.append(effect)
            }
        }
        return (missing, pool)
    }

    static func describe<Effect>(_ effects: [Effect]) -> String {
        String(reflecting: effects)
    }
}
