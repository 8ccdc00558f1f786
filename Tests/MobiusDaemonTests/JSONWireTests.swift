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

/// What a parse-thread batch's events keep of it until their pass is committed.
@Suite("Line batches: event texts")
struct LineBatchTextTests {
    static func interpret(_ text: String, eventsAsText: Bool = false) -> [ClientInput] {
        let state = RequestState(
            connection: 1, peerUID: 0, eventsAsText: eventsAsText, canRead: true, canWrite: true)
        let job = LineBatch.Job(
            connection: 1, bytes: Array(text.utf8), firstLine: 1, state: state, replyBudget: 1 << 20,
            maxInputs: 1000, maxLineBytes: 1 << 20)
        return LineBatch.interpret(job).inputs
    }

    static func texts(_ inputs: [ClientInput]) -> [ArraySlice<UInt8>] {
        inputs.compactMap { input in
            if case .event(_, let text?, _) = input { return text }
            return nil
        }
    }

    @Test func eventsOfABatchOfEventsAreSlicesOfIt() {
        let texts = Self.texts(Self.interpret(String(repeating: #"{"type":"increment"}"# + "\n", count: 3)))
        #expect(texts.map { Array($0) } == Array(repeating: Array(#"{"type":"increment"}"#.utf8), count: 3))
        #expect(texts.map(\.startIndex) == [0, 21, 42], "no copies")
    }

    /// For an update plugin the loop reads a compact event's text only: its parsed JSON stays on the parse thread.
    /// An event that is not compact keeps its JSON, which the loop encodes for the plugin and the journal.
    @Test(arguments: [false, true])
    func eventsAsTextKeepJSONOnlyWhenThereIsNoText(eventsAsText: Bool) {
        let inputs = Self.interpret(
            #"{"type":"add","n":1}"# + "\n" + #"{ "type": "add" }"# + "\n", eventsAsText: eventsAsText)
        let kept: [Bool?] = inputs.map { input in
            // Not `json != nil`: JSONValue takes the nil literal, so that compares with a JSON null.
            if case .event(.some, _, _) = input { return true }
            if case .event(.none, _, _) = input { return false }
            return nil
        }
        #expect(kept == [!eventsAsText, true])
        #expect(Self.texts(inputs).map { Array($0) } == [Array(#"{"type":"add","n":1}"#.utf8)])
    }

    @Test func eventsAmongLongerLinesGetBytesOfTheirOwn() {
        let padding = "ping" + String(repeating: " ", count: 1000) + "\n"
        let texts = Self.texts(Self.interpret(padding + #"{"type":"increment"}"# + "\n" + padding))
        #expect(texts.map { Array($0) } == [Array(#"{"type":"increment"}"#.utf8)])
        #expect(texts.map(\.startIndex) == [0], "copied: the batch's 2 KB are not kept for a 20-byte event")
    }
}
