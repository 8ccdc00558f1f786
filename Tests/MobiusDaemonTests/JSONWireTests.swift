import Testing

@testable import MobiusDaemon

/// Which event lines the journal records as they came (`JSONWire.compactText`).
@Suite("JSON wire: compact event text")
struct JSONWireTests {
    @Test(arguments: [
        #"{"type":"increment"}"#, #"{"a":"x y"}"#, #"{"a":"x\" y"}"#, #"{"a":"\\"}"#, #"[1,2.5,null,true]"#,
        #""a string with spaces""#,
    ])
    func compactTextIsKept(text: String) {
        let bytes = Array(text.utf8)
        #expect(JSONWire.compactText(bytes[...]) == bytes[...])
    }

    @Test(arguments: [
        #"{ "type":"increment"}"#, #"{"a":1 }"#, "{\"a\":\t1}", #"{"a":"\\" ,"b":1}"#, "[1,\r\n2]",
        #"{"a":"\" ","b": 1}"#,
    ])
    func whitespaceOutsideStringsIsNot(text: String) {
        #expect(JSONWire.compactText(Array(text.utf8)[...]) == nil)
    }
}
