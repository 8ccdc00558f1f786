import Foundation
import MobiusJSON
import Testing

/// Each intentional difference from JSONSerialization, shown on both parsers, plus the
/// strictness rules where the two agree.
@Suite("Differences from JSONSerialization")
struct KnownDisagreementTests {
    @Test("trailing commas: Foundation accepts, we reject", arguments: ["[1,]", #"{"a":1,}"#, "[[],]"])
    func trailingComma(text: String) {
        #expect(foundationParse(Array(text.utf8)) != nil)
        guard case .failure(let error) = parseResult(text) else {
            Issue.record("accepted \(text)")
            return
        }
        #expect(KnownDisagreement.classify(ours: error, foundation: nil) == .trailingComma)
    }

    @Test("a leading byte-order mark: Foundation skips it, we reject it")
    func byteOrderMark() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF, 0x31]
        #expect(foundationParse(bytes) != nil)
        guard case .failure(let error) = parseResult(bytes) else {
            Issue.record("accepted a BOM")
            return
        }
        #expect(KnownDisagreement.classify(ours: error, foundation: nil) == .byteOrderMark)
    }

    @Test("numbers beyond Double: Foundation rejects, we keep the text", arguments: ["1e400", "-1e400", "[1e999999]"])
    func unrepresentableNumbers(text: String) throws {
        let verdict = FoundationVerdict(Array(text.utf8))
        #expect(verdict.value == nil)
        #expect(KnownDisagreement.classify(ours: nil, foundation: verdict.message) == .unrepresentableNumber)
        #expect(encodedText(try JSONValue(parsing: text)) == text)
    }

    @Test("U+FEFF inside strings: Foundation drops it at the start of a string and after an escape, we keep it")
    func byteOrderMarkInStrings() throws {
        for text in ["\"\u{FEFF}x\"", #""\n\#u{FEFF}x""#] {
            let theirs = try #require(foundationParse(Array(text.utf8)) as? String)
            #expect(!theirs.unicodeScalars.contains("\u{FEFF}"))
            #expect(try JSONValue(parsing: text).stringValue?.unicodeScalars.contains("\u{FEFF}") == true)
        }
        let middle = "\"x\u{FEFF}y\""
        #expect(foundationParse(Array(middle.utf8)) as? String == "x\u{FEFF}y")
    }

    @Test("-0 keeps its sign here; Foundation turns it into integer 0")
    func negativeZero() throws {
        #expect(encodedText(try JSONValue(parsing: "-0")) == "-0")
        let theirs = try #require(foundationParse(Array("-0".utf8)))
        #expect(jsonValue(fromFoundation: theirs) == 0)  // equal by value, only the text differs
    }

    @Test(
        "both reject lone surrogates, leading zeros, control characters, invalid UTF-8 and deep nesting",
        arguments: [
            Array(#""\ud800""#.utf8), Array(#""\udc00x""#.utf8), Array("01".utf8), Array("\"\t\"".utf8),
            [0x22, 0xFF, 0x22],
            [0x22, 0xED, 0xA0, 0x80, 0x22], Array("NaN".utf8), Array("[1]x".utf8),
            Array((String(repeating: "[", count: 513) + String(repeating: "]", count: 513)).utf8),
        ])
    func bothReject(bytes: [UInt8]) {
        #expect(foundationParse(bytes) == nil)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: bytes) }
    }

    @Test("both take the last of duplicate keys")
    func duplicateKeys() throws {
        let text = Array(#"{"a":1,"a":2}"#.utf8)
        let theirs = try #require(foundationParse(text))
        #expect(try JSONValue(parsing: text) == jsonValue(fromFoundation: theirs))
        #expect(try JSONValue(parsing: text)["a"] == 2)
    }
}
