import MobiusJSON
import Testing

@testable import MobiusDaemon

@Suite("Request line classification (docs/protocol.md 1.2)")
struct RequestLineTests {
    func classify(_ text: String) -> RequestLine {
        RequestLine.classify(ArraySlice(Array(text.utf8)))
    }

    @Test(
        "JSON values of every kind are events",
        arguments: [#"{"type":"increment"}"#, "[1,2]", #""text""#, "-1", "0", "42.5e3", "true", "false", "null"])
    func events(_ line: String) throws {
        guard case .event(let text) = classify("  \(line) ") else {
            Issue.record("\(line) is not an event: \(classify(line))")
            return
        }
        #expect(String(decoding: text, as: UTF8.self) == line, "the event text is the trimmed line")
        #expect(try JSONWire.parse(text) == (try JSONValue(parsing: line)))
    }

    @Test("surrounding whitespace is ignored; blank lines are blank")
    func whitespace() {
        guard case .event = classify("  \t{\"a\":1}\t ") else {
            Issue.record("padded event not recognised")
            return
        }
        for blank in ["", "   ", "\t \r"] {
            guard case .blank = classify(blank) else {
                Issue.record("\"\(blank)\" is not blank")
                return
            }
        }
    }

    @Test(
        "lines that start like JSON are events; those that do not parse fail in the loop's parser (InvalidJSON)",
        arguments: ["{bad", #"{"a":1} x"#, "[1,]", "-", "01", "true 1"])
    func invalidJSON(_ line: String) {
        guard case .event(let text) = classify(line) else {
            Issue.record("\(line): \(classify(line))")
            return
        }
        #expect(throws: JSONParseError.self) { try JSONWire.parse(text) }
    }

    @Test("a word that only begins like a JSON literal is a command")
    func literalPrefix() {
        guard case .command("nullx", _) = classify("nullx") else {
            Issue.record("nullx: \(classify("nullx"))")
            return
        }
    }

    @Test("other lines are UnknownCommand", arguments: ["Ping", "Infinity", "NaN", "}", "#comment"])
    func unknown(_ line: String) {
        guard case .invalid(let code, _, false) = classify(line) else {
            Issue.record("\(line): \(classify(line))")
            return
        }
        #expect(code == .unknownCommand)
    }

    @Test("commands split into a name and a trimmed argument")
    func commands() {
        guard case .command(let name, let argument) = classify(#"  model   {"path":"/a"}  "#) else {
            Issue.record("not a command")
            return
        }
        #expect(name == "model")
        #expect(String(decoding: argument, as: UTF8.self) == #"{"path":"/a"}"#)
        guard case .command("ping", let empty) = classify("ping") else {
            Issue.record("ping is not a command")
            return
        }
        #expect(empty.isEmpty)
    }

    @Test("NUL bytes and invalid UTF-8 are InvalidEncoding, with the offset")
    func encoding() {
        let cases: [([UInt8], String)] = [
            (Array(#"{"a":"x"#.utf8) + [0] + Array(#""}"#.utf8), "NUL byte at offset 7"),
            ([0x7B, 0xFF, 0x7D], "invalid UTF-8 at offset 1"),
            ([0x22, 0xC3], "truncated UTF-8 sequence at offset 1"),
            ([0x22, 0xE0, 0x80, 0x80, 0x22], "invalid UTF-8 at offset 1"),  // overlong
            ([0x22, 0xED, 0xA0, 0x80, 0x22], "invalid UTF-8 at offset 1"),  // surrogate
        ]
        for (bytes, expected) in cases {
            guard case .invalid(.invalidEncoding, let message, true) = RequestLine.classify(ArraySlice(bytes)) else {
                Issue.record("\(bytes) was not InvalidEncoding")
                continue
            }
            #expect(message == expected)
        }
        guard case .event = classify(#"{"ä":"日本"}"#) else {
            Issue.record("valid UTF-8 rejected")
            return
        }
    }

    @Test("a command line with bad encoding is still a command: reply off does not silence it")
    func badEncodingCommand() {
        guard
            case .invalid(.invalidEncoding, _, false) = RequestLine.classify(ArraySlice(Array("model ".utf8) + [0xFF]))
        else {
            Issue.record("a command with invalid UTF-8 was taken for an event")
            return
        }
        guard case .invalid(.invalidEncoding, _, true) = RequestLine.classify(ArraySlice(Array("send ".utf8) + [0]))
        else {
            Issue.record("send with a NUL byte is event-like")
            return
        }
    }

    @Test("event-like lines are the ones reply modes and the rejected counter apply to")
    func eventLike() {
        #expect(classify("{}").isEventLike)
        #expect(classify("{bad").isEventLike)
        #expect(classify("send {}").isEventLike)
        #expect(!classify("model").isEventLike)
        #expect(!classify("Ping").isEventLike)
        #expect(!classify("").isEventLike)
    }
}
