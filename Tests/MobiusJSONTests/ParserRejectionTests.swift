import MobiusJSON
import Testing

/// One input the parser must reject, with the error class and byte offset it must report.
struct Rejection: CustomTestStringConvertible, Sendable {
    let input: [UInt8]
    let kind: JSONParseError.Kind
    let offset: Int

    init(_ text: String, _ kind: JSONParseError.Kind, at offset: Int) {
        input = Array(text.utf8)
        self.kind = kind
        self.offset = offset
    }

    init(bytes: [UInt8], _ kind: JSONParseError.Kind, at offset: Int) {
        input = bytes
        self.kind = kind
        self.offset = offset
    }

    var testDescription: String { String(decoding: input, as: UTF8.self).debugDescription }
}

@Suite("Parser: rejected input")
struct ParserRejectionTests {
    static let rejections: [Rejection] = [
        Rejection("", .unexpectedEnd, at: 0),
        Rejection("   ", .unexpectedEnd, at: 3),
        Rejection("01", .invalidNumber, at: 0),
        Rejection("-01", .invalidNumber, at: 1),
        Rejection("[00]", .invalidNumber, at: 1),
        Rejection("[1,]", .unexpectedCharacter, at: 3),
        Rejection(#"{"a":1,}"#, .unexpectedCharacter, at: 7),
        Rejection("[,1]", .unexpectedCharacter, at: 1),
        Rejection("{'a':1}", .unexpectedCharacter, at: 1),
        Rejection("'a'", .unexpectedCharacter, at: 0),
        Rejection("[1]//c", .trailingContent, at: 3),
        Rejection("/* c */ 1", .unexpectedCharacter, at: 0),
        Rejection("NaN", .unexpectedCharacter, at: 0),
        Rejection("-Infinity", .unexpectedCharacter, at: 1),
        Rejection("Infinity", .unexpectedCharacter, at: 0),
        Rejection("+1", .unexpectedCharacter, at: 0),
        Rejection(".5", .unexpectedCharacter, at: 0),
        Rejection("1.", .unexpectedEnd, at: 2),
        Rejection("[1.]", .invalidNumber, at: 3),
        Rejection("1e", .unexpectedEnd, at: 2),
        Rejection("1e+", .unexpectedEnd, at: 3),
        Rejection("[1ex]", .invalidNumber, at: 3),
        Rejection("-", .unexpectedEnd, at: 1),
        Rejection("-a", .unexpectedCharacter, at: 1),
        Rejection("0x10", .trailingContent, at: 1),
        Rejection("\"a\tb\"", .controlCharacter, at: 2),
        Rejection("\"a\nb\"", .controlCharacter, at: 2),
        Rejection(#""\x""#, .invalidEscape, at: 1),
        Rejection(#""\U0041""#, .invalidEscape, at: 1),
        Rejection(#""\u00G1""#, .invalidEscape, at: 5),
        Rejection(#""\u12""#, .invalidEscape, at: 5),
        Rejection(#""\ud800""#, .loneSurrogate, at: 1),
        Rejection(#""\udc00""#, .loneSurrogate, at: 1),
        Rejection(#""\ud800\u0041""#, .loneSurrogate, at: 1),
        Rejection(#""x\ud83d\ud83d""#, .loneSurrogate, at: 2),
        Rejection(#""abc"#, .unexpectedEnd, at: 4),
        Rejection("[1 2]", .unexpectedCharacter, at: 3),
        Rejection(#"{"a" 1}"#, .unexpectedCharacter, at: 5),
        Rejection(#"{"a":}"#, .unexpectedCharacter, at: 5),
        Rejection("{1:2}", .unexpectedCharacter, at: 1),
        Rejection("[1", .unexpectedEnd, at: 2),
        Rejection("{", .unexpectedEnd, at: 1),
        Rejection("tru", .unexpectedEnd, at: 3),
        Rejection("trUe", .unexpectedCharacter, at: 2),
        Rejection("nul1", .unexpectedCharacter, at: 3),
        Rejection("True", .unexpectedCharacter, at: 0),
        Rejection("[1]x", .trailingContent, at: 3),
        Rejection("1 2", .trailingContent, at: 2),
        Rejection("{} {}", .trailingContent, at: 3),
        Rejection("\u{FEFF}1", .unexpectedCharacter, at: 0),
        Rejection("\u{A0}1", .unexpectedCharacter, at: 0),
        Rejection(bytes: [0x22, 0x00, 0x22], .controlCharacter, at: 1),
        Rejection(bytes: [0x22, 0x61, 0xFF, 0x22], .invalidUTF8, at: 2),
        Rejection(bytes: [0x22, 0xC0, 0xAF, 0x22], .invalidUTF8, at: 1),
        Rejection(bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22], .invalidUTF8, at: 1),
        Rejection(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, at: 1),
        Rejection(bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8, at: 1),
        Rejection(bytes: [0x22, 0xC3, 0x22], .invalidUTF8, at: 1),
        Rejection(bytes: [0x22, 0xE2, 0x82], .invalidUTF8, at: 1),
        Rejection(bytes: [0x5B, 0x31, 0x5D, 0x80], .invalidUTF8, at: 3),
        Rejection(bytes: [0xFF], .invalidUTF8, at: 0),
        Rejection(bytes: [0x31, 0x00], .trailingContent, at: 1),
        Rejection(bytes: [0x00], .unexpectedCharacter, at: 0),
    ]

    @Test("each rule rejects with its kind and offset", arguments: rejections)
    func rejects(_ rejection: Rejection) {
        switch parseResult(rejection.input) {
        case .success(let value):
            Issue.record("accepted as \(value)")
        case .failure(let error):
            #expect(error.kind == rejection.kind, "\(error)")
            #expect(error.offset == rejection.offset, "\(error)")
        }
    }

    @Test("messages name the problem and the byte")
    func messages() {
        #expect(
            parseResult(#"{"a":1,"b":x}"#).errorDescription == "unexpected character 'x', expected a value at byte 11")
        #expect(parseResult([0x31, 0x20, 0xC3]).errorDescription == "invalid UTF-8 at byte 2")
        #expect(parseResult("[1]é").errorDescription == "unexpected character 'é' after the value at byte 3")
        #expect(parseResult("\"a\u{1}\"").errorDescription == "unescaped control character 0x01 in string at byte 2")
        #expect(parseResult(#""\ud800""#).errorDescription == #"lone surrogate \ud800 at byte 1"#)
        #expect(parseResult("[1,]").errorDescription == "trailing comma before ']' at byte 3")
        #expect(parseResult("01").errorDescription == "leading zero in number at byte 0")
        #expect(parseResult(#""\x""#).errorDescription == "invalid escape: backslash before character 'x' at byte 1")
        #expect(parseResult("[1").errorDescription == "unexpected end of input, expected ',' or ']' at byte 2")
        let deep = String(repeating: "[", count: 100_000)
        #expect(parseResult(deep).errorDescription == "nesting deeper than 512 at byte 512")
    }

    @Test("100,000 nested arrays or objects give an error, not a crash")
    func depthLimit() {
        for opener in ["[", #"{"a":"#] {
            let text = String(repeating: opener, count: 100_000)
            guard case .failure(let error) = parseResult(text) else {
                Issue.record("deep nesting accepted")
                continue
            }
            #expect(error.kind == .depthLimitExceeded)
            #expect(error.offset == 512 * opener.utf8.count)
        }
    }

    @Test("duplicate keys are rejected when asked")
    func duplicateKeysRejected() {
        let strict = JSONParser(duplicateKeys: .reject)
        let result = parseResult(#"{"a":1,"b":2,"a":3}"#, parser: strict)
        #expect(result.errorKind == .duplicateKey)
        #expect(result.errorOffset == 13)
        let many = "{" + (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k7\":0}"
        #expect(parseResult(many, parser: strict).errorKind == .duplicateKey)
    }
}

extension Result where Failure == JSONParseError {
    var errorDescription: String? {
        if case .failure(let error) = self { return error.description }
        return nil
    }

    var errorKind: JSONParseError.Kind? {
        if case .failure(let error) = self { return error.kind }
        return nil
    }

    var errorOffset: Int? {
        if case .failure(let error) = self { return error.offset }
        return nil
    }
}
