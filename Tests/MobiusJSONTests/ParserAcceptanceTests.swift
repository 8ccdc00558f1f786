import MobiusJSON
import Testing

@Suite("Parser: accepted input")
struct ParserAcceptanceTests {
    @Test(
        "canonical documents round-trip byte for byte",
        arguments: [
            "null", "true", "false", "0", "-1", "\"\"", "\"a\"", "[]", "{}", "[1,2,3]",
            #"{"type":"increment","by":1,"tag":"abc"}"#,
            #"{"a":[{"b":null},[],{}],"c":"\u0000\n\t\\\"","d":-0.5e-3}"#,
            #"[12345678901234567890123,1e400,0.1000000000000000055511151231257827,-0,1E+2]"#,
            "[-9223372036854775808,9223372036854775807,18446744073709551615,9007199254740993]",
            "\"é中😀\u{7F}\"", #"{"z":1,"a":2,"m":3}"#,
        ])
    func canonicalRoundTrip(text: String) throws {
        let value = try JSONValue(parsing: text)
        #expect(encodedText(value) == text)
    }

    @Test("whitespace around and inside values is ignored")
    func whitespace() throws {
        let value = try JSONValue(parsing: " \t\r\n{ \"a\" :\n[ 1 ,\t2 ] , \"b\" : true }\n ")
        #expect(encodedText(value) == #"{"a":[1,2],"b":true}"#)
    }

    @Test("escapes decode to the characters they name")
    func escapes() throws {
        let value = try JSONValue(parsing: #""\"\\\/\b\f\n\r\t\u0041\u00e9\u4e2d\ud83d\ude00\u0000""#)
        #expect(value.stringValue == "\"\\/\u{08}\u{0C}\n\r\tAé中😀\0")
        #expect(encodedText(value) == #""\"\\/\b\f\n\r\tAé中😀\u0000""#)
    }

    @Test("64-bit integers are exact")
    func integerExactness() throws {
        let value = try JSONValue(
            parsing: "[-9223372036854775808,9223372036854775807,18446744073709551615,9007199254740993]")
        #expect(value[0]?.int64Value == Int64.min)
        #expect(value[1]?.int64Value == Int64.max)
        #expect(value[2]?.numberValue?.uint64Value == UInt64.max)
        #expect(value[2]?.int64Value == nil)
        #expect(value[3]?.int64Value == 9_007_199_254_740_993)
        #expect(value[3]?.numberValue?.isInteger == true)
    }

    @Test("numbers beyond 64 bits and Double keep their text")
    func keptText() throws {
        let text = "[-9223372036854775809,18446744073709551616,1e999999,-1e999999,1e-999999]"
        let value = try JSONValue(parsing: text)
        #expect(encodedText(value) == text)
        #expect(value[0]?.int64Value == nil)
        #expect(value[2]?.doubleValue == .infinity)
        #expect(value[3]?.doubleValue == -.infinity)
        #expect(value[4]?.doubleValue == 0)
    }

    @Test("absurd numbers parse quickly and keep their text")
    func absurdNumbers() throws {
        let digits = "9" + String(repeating: "0", count: 9_999)
        let value = try JSONValue(parsing: digits)
        #expect(encodedText(value) == digits)
        #expect(value.doubleValue == .infinity)
        let longFraction = "0." + String(repeating: "3", count: 10_000)
        #expect(try JSONValue(parsing: longFraction).doubleValue == 1.0 / 3.0)
        let hugeExponent = "1e" + String(repeating: "9", count: 10_000)
        #expect(try JSONValue(parsing: hugeExponent).doubleValue == .infinity)
    }

    @Test("a value inside a larger buffer parses in place with offsets relative to the slice")
    func slices() throws {
        let line = Array(#"send {"a":1} trailing"#.utf8)
        try line.withUnsafeBytes { buffer in
            let slice = UnsafeRawBufferPointer(rebasing: buffer[5..<12])
            #expect(try JSONValue(parsing: slice) == ["a": 1])
            #expect(JSONParser().isSingleValue(slice))
            #expect(JSONParser().isSingleValue(UnsafeRawBufferPointer(rebasing: buffer[4..<13])))
            #expect(!JSONParser().isSingleValue(UnsafeRawBufferPointer(rebasing: buffer[5..<14])))
            let prefix = try JSONParser().parsePrefix(UnsafeRawBufferPointer(rebasing: buffer[4...]))
            #expect(prefix.value == ["a": 1])
            #expect(prefix.end == 8)
            do throws(JSONParseError) {
                try JSONParser().validate(UnsafeRawBufferPointer(rebasing: buffer[5..<14]))
                Issue.record("trailing content accepted")
            } catch {
                #expect(error.offset == 8)
            }
        }
    }

    @Test("nesting up to the limit is accepted; the limit is configurable")
    func depthWithinLimit() throws {
        let deep = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONValue(parsing: deep) }
        let shallowParser = JSONParser(maxDepth: 2)
        #expect(throws: Never.self) { try shallowParser.parse("[{}]") }
        #expect(throws: JSONParseError.self) { try shallowParser.parse("[[[]]]") }
    }

    @Test("first invalid UTF-8 offset")
    func utf8Scan() {
        let bytes: [UInt8] = [0x61, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xED, 0xA0, 0x80]
        bytes.withUnsafeBytes { #expect(JSONParser.firstInvalidUTF8(in: $0) == 6) }
        Array("ok é".utf8).withUnsafeBytes { #expect(JSONParser.firstInvalidUTF8(in: $0) == nil) }
    }
}
