import MobiusJSON
import Testing

@Suite("Encoder")
struct EncoderTests {
    @Test("control characters, quotes and backslashes are escaped; other text stays raw UTF-8")
    func escaping() {
        let text = "\"\\/\n\r\t\u{08}\u{0C}\u{00}\u{01}\u{1F}\u{7F}é😀\u{2028}"
        #expect(encodedText(.string(text)) == #""\"\\/\n\r\t\b\f\u0000\u0001\u001f"# + "\u{7F}é😀\u{2028}\"")
    }

    @Test("the encoder writes canonical compact text for parsed input")
    func canonicalForm() throws {
        let value = try JSONValue(parsing: " { \"a\" : [ 1 , 2.50 , \"\\u0041\\/\" ] , \"b\" : { } } ")
        #expect(encodedText(value) == #"{"a":[1,2.50,"A/"],"b":{}}"#)
        #expect(value.description == encodedText(value))
    }

    @Test("parse(encode(v)) == v for generated values", arguments: 0..<4)
    func roundTrip(seed: Int) throws {
        var generator = DocumentGenerator(random: SeededGenerator(seed: UInt64(seed)))
        for _ in 0..<250 {
            let value = generator.value(depth: 0)
            let bytes = value.encoded()
            let parsed = try JSONValue(parsing: bytes)
            #expect(parsed == value)
            #expect(parsed.encoded() == bytes)
        }
    }

    @Test("doubles are written as their shortest round-trip text")
    func doubles() throws {
        for double in [0.1, -2.5, 1e-7, 123456.789, Double.leastNonzeroMagnitude, 1.7976931348623157e308, -0.0, 3.0] {
            let bytes = JSONValue.number(JSONNumber(double)!).encoded()
            let parsed = try JSONValue(parsing: bytes)
            #expect(parsed.doubleValue == double)
            #expect(parsed.doubleValue?.sign == double.sign)
        }
    }

    @Test("encode(into:) appends")
    func appending() {
        var output = Array("x".utf8)
        JSONValue.array([1, "a"]).encode(into: &output)
        #expect(String(decoding: output, as: UTF8.self) == #"x[1,"a"]"#)
    }
}
