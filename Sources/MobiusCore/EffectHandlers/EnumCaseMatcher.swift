import Synchronization

/// Matches values of an enum against one case by reflection, for `routeCase`.
///
/// Swift has no public API to ask "is this value case X" for an arbitrary enum, so the matcher reads the case name
/// with `Mirror`. For a case with a payload it learns the case name from the embedding function the first time a
/// payload of the right type is seen, then compares names. Cost: one `Mirror` per check (see docs/library.md for the
/// measured price); for `Equatable` payload-less cases the router uses `==` instead.
@usableFromInline final class EnumCaseMatcher<Value, Payload>: @unchecked Sendable {
    // Kept @inlinable: MobiusBench "roundtrip-mirror" row.
    // @unchecked: the only mutable state is the learned case name, behind a Mutex.
    @usableFromInline let embed: (Payload) -> Value
    @usableFromInline let learnedName = Mutex<String?>(nil)

    @inlinable init(embed: @escaping (Payload) -> Value) {
        self.embed = embed
    }

    @inlinable func extract(_ value: Value) -> Payload? {
        guard let (name, payload) = Self.caseNameAndPayload(value), let typed = Self.cast(payload) else { return nil }
        if let known = learnedName.withLock({ $0 }) {
            return known == name ? typed : nil
        }
        guard let embeddedName = Self.caseName(embed(typed)) else { return nil }
        learnedName.withLock { $0 = embeddedName }
        return embeddedName == name ? typed : nil
    }

    /// Casts a reflected payload. A case with one labelled value, `case search(query: String)`, reflects its payload
    /// as the one-element tuple `(query: String)`; its embedding function takes the bare value, so unwrap it.
    @inlinable static func cast(_ payload: Any) -> Payload? {
        if let typed = payload as? Payload { return typed }
        let mirror = Mirror(reflecting: payload)
        guard mirror.displayStyle == .tuple, mirror.children.count == 1, let only = mirror.children.first else {
            return nil
        }
        return only.value as? Payload
    }

    @inlinable static func caseName(_ value: Value) -> String? {
        caseNameAndPayload(value)?.name
    }

    @inlinable static func caseNameAndPayload(_ value: Value) -> (name: String, payload: Any)? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum, let child = mirror.children.first, let label = child.label else {
            return nil
        }
        return (label, child.value)
    }
}
