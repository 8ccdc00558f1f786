import Synchronization

/// How ``JSONValueEncoder`` and ``JSONValueDecoder`` lay out an enum whose `Codable` conformance Swift synthesized
/// (`enum Event: Codable { case unlock(code: String), lock }` with no `init(from:)` or `encode(to:)` of its own).
/// Raw-value enums (`enum Mode: String, Codable`) are their raw value in either shape, and types with their own
/// `Codable` code are written as that code says.
public enum JSONEnumShape: Sendable, Hashable {
    /// Swift's and Foundation's shape: one member named after the case, holding the associated values as an object
    /// (labelled values under their labels, unlabelled ones as `_0`, `_1`, …): `{"unlock":{"code":"1234"}}`,
    /// `{"lock":{}}`.
    case swiftKeyed
    /// The case name in a `type` member beside the associated values: `{"type":"unlock","code":"1234"}`,
    /// `{"type":"lock"}`. A case whose only value is unlabelled and is itself an object without a `type` member
    /// (a struct) has that object's members in place of `_0`: `case add(Item)` is `{"type":"add","title":"milk"}`.
    /// A case with a value labelled `type` cannot be written or read in this shape (an `EncodingError` or
    /// `DecodingError` that says so).
    case typeTagged
}

/// Recognizes the containers of Swift's synthesized enum `Codable`: a keyed container keyed by the enum's
/// `CodingKeys` (the case names) whose one member is a nested keyed container keyed by the case's own
/// `<Case>CodingKeys` (its associated values).
enum SynthesizedEnum {
    /// The member that names the case in ``JSONEnumShape/typeTagged``.
    static let tag = "type"

    /// Whether `type` is an enum (not `Optional`): the first word of its type metadata is its kind, and Swift's
    /// stable ABI gives enums the kind 0x201 (`MetadataKind::Enum`, Optional is 0x202, structs 0x200).
    static func isEnum(_ type: Any.Type) -> Bool {
        unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: UInt.self) == 0x201
    }

    /// Whether `keys` is the `CodingKeys` declared in (or synthesized for) the enum `type`.
    static func isCaseKeys(_ keys: Any.Type, of type: Any.Type) -> Bool {
        guard isEnum(type) else { return false }
        return remembered(keys, type) {
            let (owner, last) = splitName(keys)
            return last == "CodingKeys" && owner == String(reflecting: type)
        }
    }

    /// Whether `nested` is a case's `<Case>CodingKeys` beside `keys`, an enum's `CodingKeys`.
    static func isPayloadKeys(_ nested: Any.Type, in keys: Any.Type) -> Bool {
        remembered(nested, keys) {
            let (owner, last) = splitName(keys)
            let (nestedOwner, nestedLast) = splitName(nested)
            return last == "CodingKeys" && nestedOwner == owner && nestedLast.count > last.count
                && nestedLast.hasSuffix(last)
        }
    }

    private struct TypePair: Hashable {
        let first: ObjectIdentifier
        let second: ObjectIdentifier
    }

    /// The answers so far, by pair of types: a program has a fixed set of types, and building the names behind an
    /// answer takes longer than decoding the rest of a small event.
    private static let answers = Mutex<[TypePair: Bool]>([:])

    private static func remembered(_ first: Any.Type, _ second: Any.Type, _ answer: () -> Bool) -> Bool {
        let pair = TypePair(first: ObjectIdentifier(first), second: ObjectIdentifier(second))
        if let known = answers.withLock({ $0[pair] }) { return known }
        let computed = answer()
        answers.withLock { $0[pair] = computed }
        return computed
    }

    /// A type's full name split at its last dot: the type it is declared in, and its own name. Synthesized coding
    /// keys are private, so their names have an anonymous context, each its own
    /// (`App.Event.(unknown context at $5f2c0a).CodingKeys`): it is left out of the owner.
    private static func splitName(_ type: Any.Type) -> (owner: Substring, last: Substring) {
        let name = String(reflecting: type)[...]
        guard let dot = name.lastIndex(of: ".") else { return ("", name) }
        var owner = name[..<dot]
        if owner.hasSuffix(")"), let context = owner.lastIndex(of: "."),
            owner[context...].hasPrefix(".(unknown context at ")
        {
            owner = owner[..<context]
        }
        return (owner, name[name.index(after: dot)...])
    }
}
