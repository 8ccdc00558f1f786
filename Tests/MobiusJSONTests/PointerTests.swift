import MobiusJSON
import Testing

@Suite("JSON Pointer (RFC 6901)")
struct PointerTests {
    /// The document of RFC 6901 section 5, written out here.
    static let document: JSONValue = [
        "foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8,
    ]

    @Test(
        "the RFC's examples select the RFC's values",
        arguments: [
            ("", nil), ("/foo", #"["bar","baz"]"#), ("/foo/0", #""bar""#), ("/", "0"), ("/a~1b", "1"), ("/c%d", "2"),
            ("/e^f", "3"), ("/g|h", "4"), ("/i\\j", "5"), ("/k\"l", "6"), ("/ ", "7"), ("/m~0n", "8"),
        ] as [(String, String?)])
    func rfcExamples(pointer: String, expected: String?) throws {
        let parsed = try JSONPointer(pointer)
        let expectedValue = try expected.map { try JSONValue(parsing: $0) } ?? PointerTests.document
        #expect(parsed.value(in: PointerTests.document) == expectedValue)
        #expect(parsed.description == pointer)
    }

    @Test(
        "absent values",
        arguments: [
            "/nope", "/foo/2", "/foo/-", "/foo/01", "/foo/+1", "/foo/-1", "/foo/x", "/foo/0/x", "/ /x",
            "/foo/99999999999999999999999",
        ])
    func absent(pointer: String) throws {
        #expect(try JSONPointer(pointer).value(in: PointerTests.document) == nil)
    }

    @Test("malformed pointers are errors", arguments: [("foo", 0), ("/a~2", 2), ("/a~", 2), ("/~x/b", 1)])
    func malformed(pointer: String, offset: Int) {
        do throws(JSONPointerError) {
            _ = try JSONPointer(pointer)
            Issue.record("accepted \(pointer)")
        } catch {
            #expect(error.offset == offset)
            #expect(error.description.contains(pointer))
        }
    }

    @Test("tokens escape back to the string form")
    func tokens() throws {
        let pointer = JSONPointer(tokens: ["a/b", "~", ""]).appending("0")
        #expect(pointer.description == "/a~1b/~0//0")
        #expect(try JSONPointer(pointer.description) == pointer)
        #expect(try JSONPointer("/~01").tokens == ["~1"])
    }

    @Test("a ~ or / that a combining mark follows is escaped too")
    func escapesBeforeCombiningMarks() throws {
        // Found by the pointer fuzz target: "~\u{301}" is one Character, which a search for "~" did not find.
        let pointer = JSONPointer(tokens: ["~\u{301}", "/\u{301}x"])
        #expect(pointer.description == "/~0\u{301}/~1\u{301}x")
        #expect(try JSONPointer(pointer.description) == pointer)
    }
}
