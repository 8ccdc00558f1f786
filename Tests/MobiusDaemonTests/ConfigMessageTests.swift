import MobiusJSON
import Testing

@testable import MobiusDaemon

@Suite("Config errors a person can act on")
struct ConfigMessageTests {
    func problem(_ text: String) -> String? {
        do {
            _ = try DaemonConfig(json: try! JSONValue(parsing: text), baseDirectory: "/etc/mobiusd")
            return nil
        } catch {
            return error.description
        }
    }

    func syntax(_ text: String) -> ConfigSyntaxError {
        let bytes = Array(text.utf8)
        do {
            _ = try JSONValue(parsing: bytes)
        } catch {
            return ConfigSyntaxError(error, in: bytes)
        }
        Issue.record("\(text) parsed")
        return ConfigSyntaxError(JSONParseError(kind: .unexpectedEnd, offset: 0, message: "none"), in: bytes)
    }

    @Test("a syntax error gives line and column and shows the line with a caret under the error")
    func syntaxErrorPlace() {
        let error = syntax("{\n  \"app\": \"x\",\n  \"socket\": {\"mode\": \"0660\",}\n}\n")
        #expect(error.line == 3)
        #expect(error.column == 29)
        #expect(error.message == "trailing comma before '}'")
        #expect(error.excerpt == "    \"socket\": {\"mode\": \"0660\",}\n                              ^")
        let message = error.configError(file: "/etc/a.json").description
        #expect(message.hasPrefix("/etc/a.json: line 3, column 29: not valid JSON: trailing comma before '}'\n"))
    }

    @Test("columns count characters, not bytes; tabs are kept so the caret lines up")
    func syntaxErrorColumns() {
        let error = syntax("{\"é€\":\t1 2}")
        #expect(error.line == 1)
        #expect(error.column == 10)
        #expect(error.excerpt == "  {\"é€\":\t1 2}\n        \t  ^")
    }

    @Test("input ending inside a value points past the last character")
    func syntaxErrorAtEnd() {
        let error = syntax("{\"update\": ")
        #expect(error.line == 1 && error.column == 12)
        #expect(error.excerpt.hasSuffix("           ^"))
    }

    @Test("a huge line is cut to a window around the error, and control characters are not shown raw")
    func syntaxErrorHostileLine() {
        let long = String(repeating: "a", count: 10_000)
        let error = syntax("[\"\(long)\", \u{1B}[31m]")
        #expect(error.line == 1)
        #expect(error.column == 10_006)
        #expect(!error.excerpt.contains("\u{1B}"))
        #expect(error.excerpt.utf8.count < 2 * ConfigSyntaxError.window + 20)
        #expect(error.excerpt.hasPrefix("  …"))
        // The caret sits under the escape character, shown as '?'.
        let lines = error.excerpt.split(separator: "\n")
        let caret = lines[1].unicodeScalars.count - 1
        #expect(Array(lines[0].unicodeScalars)[caret] == "?")
    }

    @Test(
        "unknown keys suggest the close known key, and only a close one",
        arguments: [
            (#"{"socket":{"pth":"x"}}"#, #"socket.pth: unknown key (did you mean "path"?)"#),
            (#"{"access":{"wirte":[]}}"#, #"access.wirte: unknown key (did you mean "write"?)"#),
            (#"{"socket":{"maxlinebytes":64}}"#, #"socket.maxlinebytes: unknown key (did you mean "maxLineBytes"?)"#),
            (#"{"sokcet":{}}"#, #"sokcet: unknown key (did you mean "socket"?)"#),
            (#"{"bogus":1}"#, "bogus: unknown key"),
            (#"{"state":{"dir":"x"}}"#, "state.dir: unknown key"),
            (
                #"{"state":{"fsync":"alway"}}"#,
                #"state.fsync: must be "always", "batch" or "never" (did you mean "always"?)"#
            ),
        ])
    func unknownKeys(_ text: String, _ expected: String) {
        #expect(problem(text) == expected)
    }

    @Test(
        "a wrong type shows the expected form and what was given",
        arguments: [
            (#"{"socket":{"mode":660}}"#, #"socket.mode: must be an octal string like "0660", not the number 660"#),
            (#"{"socket":{"path":["a"]}}"#, "socket.path: must be a string, a file path, not an array"),
            (#"{"state":{"fsync":true}}"#, #"state.fsync: must be "always", "batch" or "never", not true"#),
            (#"{"update":{"builtin":{}}}"#, "update.builtin: must be a string naming a built-in app, not an object"),
            (#"{"access":{"read":[1]}}"#, "access.read[0]: must be a string"),
        ])
    func wrongTypes(_ text: String, _ expected: String) {
        #expect(problem(text) == expected)
    }

    @Test("the suggestion is the single closest name within the limit")
    func suggestion() {
        #expect(ConfigSuggestion.closest(to: "stroe", among: ["counter", "store"]) == "store")
        #expect(ConfigSuggestion.closest(to: "countr", among: ["counter", "store"]) == "counter")
        #expect(ConfigSuggestion.closest(to: "xyz", among: ["counter", "store"]) == nil)
        // Two names equally close: no guess.
        #expect(ConfigSuggestion.closest(to: "bat", among: ["cat", "hat"]) == nil)
        #expect(ConfigSuggestion.closest(to: String(repeating: "s", count: 100_000), among: ["store"]) == nil)
        #expect(ConfigSuggestion.editDistance(Array("ab".unicodeScalars), Array("ba".unicodeScalars)) == 1)
        #expect(ConfigSuggestion.editDistance(Array("".unicodeScalars), Array("abc".unicodeScalars)) == 3)
    }

    @Test("a missing update lists every built-in app and the plugins the config declares")
    func updateChoices() {
        #expect(
            UpdateChoices.listed(plugins: [])
                == #"{"builtin":"counter"}, {"builtin":"store"} or {"plugin":"NAME"} with NAME a key of "plugins""#)
        #expect(
            UpdateChoices.listed(plugins: ["sound"])
                == #"{"builtin":"counter"}, {"builtin":"store"} or {"plugin":"sound"}"#)
    }

    @Test("keys and values quoted from the file show control characters as ?, so no escape sequence reaches a terminal")
    func controlCharactersAreNotPrinted() throws {
        // Found by the config fuzz target: an unknown key, or a value quoted in a problem, was printed as it was.
        let unknown = try #require(problem(#"{"\u001b[2J":1}"#))
        #expect(unknown == "?[2J: unknown key", "\(unknown.debugDescription)")
        let quoted = try #require(
            problem(#"{"dbus":[{"bus":"session","type":"t","match":{"sender":"a.b\u007f\u009b31m"}}]}"#))
        #expect(quoted == #"dbus[0].match.sender: "a.b??31m" is not a bus name (org.example.Name or :1.42)"#)
        #expect(!quoted.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }
}
