import Foundation
import MobiusJSON

/// MobiusJSON's parser and encoder against Foundation's `JSONSerialization` (docs/json.md).
///
/// Oracles: nothing traps; both accept or both reject the bytes, except for the differences in
/// ``JSONFuzz/Difference``; when both accept, the values agree (numbers that are not exact 64-bit integers compared as
/// the `Double` Foundation keeps); our text round-trips (`parse(encode(v)) == v`, and encoding again gives the same
/// bytes); Foundation reads our text as the same value, and we read Foundation's text back as the same value, so both
/// texts have one canonical form; numbers that are equal hash equal, whatever their spelling.
enum JSONFuzz {
    /// The deliberate differences from `JSONSerialization` (docs/json.md, "Differences from Foundation's
    /// JSONSerialization"), each with its reason. Anything else the two disagree on stops the run.
    enum Difference: CaseIterable {
        /// Foundation accepts `[1,]` and `{"a":1,}`: RFC 8259's grammar has no trailing comma.
        case trailingComma
        /// Foundation skips a leading UTF-8 byte-order mark: RFC 8259 8.1 says not to add one, and a line protocol
        /// has no use for one.
        case byteOrderMark
        /// Foundation reads text whose first bytes hold a NUL, or that starts with a UTF-16/32 byte-order mark, as
        /// UTF-16 or UTF-32: JSON exchanged between systems is UTF-8 (RFC 8259 8.1), and the daemon's lines are.
        case otherEncoding
        /// Foundation refuses numbers beyond `Double` (`1e400`): MobiusJSON keeps every number's exact text.
        case numberBeyondDouble
        /// Foundation reads `-0` as the integer 0 and writes `0`: MobiusJSON keeps the text `-0` (equal to 0).
        case negativeZero
        /// Foundation keeps a number that is not an exact 64-bit integer as a `Double` or an `NSDecimalNumber` (38
        /// digits): MobiusJSON keeps its exact decimal text, so `0.1000000000000000055511151231257827` stays apart
        /// from `0.1`. Both sides are compared as their nearest `Double` (`FoundationJSON.asFoundationSees`).
        case numberPrecision
        /// Foundation drops U+FEFF at the start of a string and after an escape (a quirk of its own): MobiusJSON keeps
        /// every character of a string. Compared without U+FEFF; an object with two keys that differ only by U+FEFF is
        /// compared for acceptance alone, since which of the two Foundation kept depends on where the U+FEFF stood in
        /// the text, which the value no longer tells.
        case byteOrderMarkInString
    }

    static func run(_ bytes: [UInt8]) {
        let ours = Result { () throws(JSONParseError) in try JSONValue(parsing: bytes) }
        let theirs = FoundationJSON.parse(bytes)
        switch (ours, theirs) {
        case (.success(let value), .success(let object)):
            if !hasKeysApartOnlyByByteOrderMarks(value) { checkAgreement(value, object, "the input") }
            checkRoundTrip(value)
            checkNumbers(in: value)
        case (.failure(let error), .success):
            check(
                difference(bytes, ours: error, theirs: nil) != nil,
                "only Foundation accepts \(show(bytes)): we say \(error)")
        case (.success(let value), .failure(let problem)):
            check(
                difference(bytes, ours: nil, theirs: problem.message) != nil,
                "only we accept \(show(bytes)): Foundation says \(problem.message)")
            checkRoundTrip(value)
            checkNumbers(in: value)
        case (.failure(let error), .failure):
            check(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) past the input")
        }
    }

    static func show(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(200), as: UTF8.self).debugDescription
    }

    /// Which deliberate difference explains a disagreement, if any.
    static func difference(_ bytes: [UInt8], ours: JSONParseError?, theirs: String?) -> Difference? {
        if let ours {
            if ours.message.hasPrefix("trailing comma") { return .trailingComma }
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) && ours.offset == 0 { return .byteOrderMark }
            let head = bytes.prefix(4)
            if head.contains(0) || head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) {
                return .otherEncoding
            }
        }
        if let theirs, theirs.contains("not representable") || theirs.contains("Number"),
            hasNumberBeyondDouble(bytes)
        {
            return .numberBeyondDouble
        }
        return nil
    }

    /// Whether the document we parsed holds a number whose `Double` is infinite.
    static func hasNumberBeyondDouble(_ bytes: [UInt8]) -> Bool {
        guard let value = try? JSONValue(parsing: bytes) else { return false }
        return contains(value) { if case .number(let number) = $0 { !number.doubleValue.isFinite } else { false } }
    }

    static func contains(_ value: JSONValue, where match: (JSONValue) -> Bool) -> Bool {
        if match(value) { return true }
        switch value {
        case .array(let items): return items.contains { contains($0, where: match) }
        case .object(let object): return object.members.contains { contains($0.value, where: match) }
        default: return false
        }
    }

    /// Whether some object in `value` has two keys that are one key without U+FEFF (`Difference.byteOrderMarkInString`).
    static func hasKeysApartOnlyByByteOrderMarks(_ value: JSONValue) -> Bool {
        contains(value) { item in
            guard case .object(let object) = item else { return false }
            let cleaned = object.keys.map { $0.unicodeScalars.filter { $0 != "\u{FEFF}" } }.map(String.init)
            return Set(cleaned).count < cleaned.count
        }
    }

    /// Our value and Foundation's are the same JSON value.
    static func checkAgreement(_ ours: JSONValue, _ theirs: Any, _ what: String) {
        let expected = FoundationJSON.value(theirs)
        check(
            FoundationJSON.asFoundationSees(ours) == FoundationJSON.asFoundationSees(expected),
            "\(what): ours \(ours) but Foundation's \(expected)")
    }

    /// Our canonical text parses back to the same value and is its own canonical text; Foundation reads it as the
    /// same value; we read Foundation's text of it as the same value.
    static func checkRoundTrip(_ value: JSONValue) {
        let text = value.encoded()
        guard let again = try? JSONValue(parsing: text) else {
            check(false, "our encoding does not parse: \(show(text))")
            return
        }
        check(again == value, "parse(encode(v)) differs: \(value) vs \(again)")
        check(again.encoded() == text, "encoding is not canonical: \(show(text)) vs \(show(again.encoded()))")
        // Values beyond Double are ours alone (Difference.numberBeyondDouble).
        guard !contains(value, where: { if case .number(let n) = $0 { !n.doubleValue.isFinite } else { false } }),
            !hasKeysApartOnlyByByteOrderMarks(value),
            case .success(let theirs) = FoundationJSON.parse(text)
        else { return }
        checkAgreement(value, theirs, "Foundation reading our text")
        guard let written = FoundationJSON.write(theirs) else {
            check(false, "Foundation cannot write what it read from \(show(text))")
            return
        }
        guard let back = try? JSONValue(parsing: written) else {
            check(false, "we cannot read Foundation's text \(show(written))")
            return
        }
        check(
            FoundationJSON.asFoundationSees(back).sortedKeys.encoded()
                == FoundationJSON.asFoundationSees(value).sortedKeys.encoded(),
            "Foundation's text \(show(written)) is not ours \(show(text))")
    }

    /// Every number equals, and hashes as, its other spellings: its own literal, with an exponent, with a fraction.
    static func checkNumbers(in value: JSONValue) {
        switch value {
        case .number(let number):
            var spellings = [number.literal]
            if number.isInteger {
                spellings += ["\(number.literal)e0", "\(number.literal).0"]
                if number != 0 { spellings.append("\(number.literal)0e-1") }
            }
            for text in spellings {
                guard let other = JSONNumber(literal: text) else {
                    check(false, "\(text) is not a number literal")
                    continue
                }
                check(other == number, "\(text) != \(number.literal)")
                check(other.hashValue == number.hashValue, "\(text) and \(number.literal) hash differently")
            }
        case .array(let items): items.forEach(checkNumbers(in:))
        case .object(let object): object.members.forEach { checkNumbers(in: $0.value) }
        default: break
        }
    }
}
