import MobiusJSON
import Testing

@testable import MobiusDaemon

/// The built-in store: set and delete at JSON Pointers, as its doc comment describes.
@Suite("Store app")
struct StoreAppTests {
    let app = StoreApp.make()
    static let limit = JSONParser.defaultMaxDepth

    /// Decodes the event the way the daemon does, then applies it; returns the new model (the old one if unchanged).
    func apply(_ event: JSONValue, to model: JSONValue) throws -> JSONValue {
        let decoded = try app.codec.decodeEvent(event)
        return try app.update(model, decoded).model ?? model
    }

    func set(_ path: String, _ value: JSONValue, in model: JSONValue) throws -> JSONValue {
        try apply(["type": "set", "path": .string(path), "value": value], to: model)
    }

    func delete(_ path: String, in model: JSONValue) throws -> JSONValue {
        try apply(["type": "delete", "path": .string(path)], to: model)
    }

    /// A pointer of `count` tokens: `/a/a/…`.
    static func pointer(tokens count: Int) -> String {
        String(repeating: "/a", count: count)
    }

    @Test("set creates the objects missing on the way and keeps their siblings")
    func nestedCreation() throws {
        var model: JSONValue = ["keep": 1]
        model = try set("/a/b/c", "deep", in: model)
        #expect(model == ["keep": 1, "a": ["b": ["c": "deep"]]])
        model = try set("/a/b/d", 2, in: model)
        #expect(model == ["keep": 1, "a": ["b": ["c": "deep", "d": 2]]])
        #expect(try set("/x/y", true, in: ["x": nil]) == ["x": ["y": true]], "null on the way becomes an object")
    }

    @Test("\"-\" appends to an array; an index replaces within it; escaped tokens name members")
    func arrays() throws {
        var model: JSONValue = ["list": [1]]
        model = try set("/list/-", 2, in: model)
        model = try set("/list/-/name", "x", in: model)
        #expect(model == ["list": [1, 2, ["name": "x"]]])
        model = try set("/list/0", 10, in: model)
        #expect(model == ["list": [10, 2, ["name": "x"]]])
        #expect(try set("/a~1b/c~0d", 1, in: [:]) == ["a/b": ["c~d": 1]])
    }

    @Test("the empty pointer replaces the whole model")
    func replaceWhole() throws {
        #expect(try set("", [1, 2], in: ["a": 1]) == [1, 2])
        #expect(try set("", "text", in: ["a": 1]) == "text")
    }

    @Test("delete removes a member or an element; deleting what is absent changes nothing")
    func deletion() throws {
        let model: JSONValue = ["a": ["b": 1, "c": 2], "list": [1, 2, 3]]
        #expect(try delete("/a/b", in: model) == ["a": ["c": 2], "list": [1, 2, 3]])
        #expect(try delete("/list/1", in: model) == ["a": ["b": 1, "c": 2], "list": [1, 3]])
        for absent in ["/nope", "/a/nope", "/a/b/c", "/list/7", "/list/-", "/list/01"] {
            let next = try app.update(model, try app.codec.decodeEvent(["type": "delete", "path": .string(absent)]))
            #expect(next.model == nil, "\(absent): no change, so no model and no publication")
            #expect(next.effects.isEmpty)
        }
    }

    @Test("setting the value already there is no change")
    func sameValue() throws {
        let next = try app.update(["a": 1], ["type": "set", "path": "/a", "value": 1])
        #expect(next.model == nil)
    }

    @Test("a set through a scalar, or to an index out of range or malformed, is rejected")
    func rejectedSets() {
        let model: JSONValue = ["n": 5, "s": "text", "list": [1, 2]]
        for path in ["/n/x", "/s/x", "/list/2", "/list/9/x", "/list/01", "/list/x", "/list/-1"] {
            #expect(throws: EventRejection.self, "\(path)") { try set(path, 1, in: model) }
        }
        #expect(throws: EventRejection.self) { try set("/x", 1, in: 3) }
    }

    @Test("malformed events are refused when decoded, before they reach the loop")
    func malformedEvents() {
        let events: [JSONValue] = [
            ["type": "merge", "path": "/a"],
            ["type": "set", "path": "/a"],
            ["type": "set", "path": 1, "value": 1],
            ["type": "set", "path": "a", "value": 1],
            ["type": "delete", "path": "/a~2"],
            "set",
        ]
        for event in events {
            #expect(throws: (any Error).self, "\(event)") { try app.codec.decodeEvent(event) }
        }
    }

    @Test("a pointer of 512 tokens is taken; one of 513 is refused when the event is decoded")
    func pointerLength() throws {
        let longest: JSONValue = ["type": "set", "path": .string(Self.pointer(tokens: Self.limit)), "value": 1]
        #expect(try app.codec.decodeEvent(longest) == longest)
        let model = try apply(longest, to: [:])
        #expect(model.nestingDepth == Self.limit)
        let tooLong: JSONValue = ["type": "set", "path": .string(Self.pointer(tokens: Self.limit + 1)), "value": 1]
        #expect(throws: (any Error).self) { try app.codec.decodeEvent(tooLong) }
        let deleteTooLong: JSONValue = ["type": "delete", "path": .string(Self.pointer(tokens: Self.limit + 1))]
        #expect(throws: (any Error).self) { try app.codec.decodeEvent(deleteTooLong) }
    }

    @Test("a value that would take the model past 512 levels is rejected; one exactly at the limit is accepted")
    func valueDepth() throws {
        // Path of 2 tokens: the value may nest 510 levels.
        let atLimit = try set("/a/b", nestedArray(depth: Self.limit - 2), in: [:])
        #expect(atLimit.nestingDepth == Self.limit)
        #expect(throws: EventRejection.self) { try set("/a/b", nestedArray(depth: Self.limit - 1), in: [:]) }
        #expect(throws: EventRejection.self) { try set("", nestedArray(depth: Self.limit + 1), in: [:]) }
        #expect(try set("", nestedArray(depth: Self.limit), in: [:]).nestingDepth == Self.limit)
        // A scalar at the deepest path is fine; a container there is one level too many.
        let deepestPath = Self.pointer(tokens: Self.limit)
        #expect(try set(deepestPath, "leaf", in: [:]).nestingDepth == Self.limit)
        #expect(throws: EventRejection.self) { try set(deepestPath, [], in: [:]) }
    }

    @Test("a set inside an existing deep model counts the whole path")
    func depthInsideExistingModel() throws {
        var model = try set(Self.pointer(tokens: Self.limit - 1), [:], in: [:])
        #expect(model.nestingDepth == Self.limit)
        model = try set(Self.pointer(tokens: Self.limit - 1) + "/x", 1, in: model)
        #expect(model.nestingDepth == Self.limit)
        #expect(throws: EventRejection.self) { try set(Self.pointer(tokens: Self.limit - 1) + "/x", [1], in: model) }
    }

    @Test("validateModel refuses a starting model deeper than 512 levels and takes one at the limit")
    func startingModel() throws {
        #expect(throws: (any Error).self) { try app.codec.decodeModel(nestedArray(depth: Self.limit + 1)) }
        #expect(try app.codec.decodeModel(nestedArray(depth: Self.limit)).nestingDepth == Self.limit)
    }

    @Test("through the loop: a rejected set answers InvalidEvent and leaves the store and seq alone")
    func rejectedThroughTheLoop() {
        let harness = LoopHarness(StoreApp.make())
        harness.run([
            clientEvent(["type": "set", "path": "/n", "value": 1], line: 1),
            clientEvent(["type": "set", "path": "/n/x", "value": 2], line: 2),
            clientEvent(["type": "delete", "path": "/missing"], line: 3),
        ])
        let answers = harness.timeline.answers
        #expect(answers[0] == .ack(1))
        #expect(answers[1].errorCode == "InvalidEvent")
        #expect(answers[1].errorMessage?.contains("/n/x") == true)
        #expect(answers[2] == .ack(2), "a delete of nothing is applied: it gets a seq but changes nothing")
        #expect(harness.loop.state.model == ["n": 1])
    }

    @Test("through the loop: an event the store cannot decode answers InvalidEvent in its place in line")
    func undecodableThroughTheLoop() {
        let harness = LoopHarness(StoreApp.make())
        let tooLong: JSONValue = ["type": "set", "path": .string(Self.pointer(tokens: Self.limit + 1)), "value": 1]
        harness.loop.enqueue(client: .event(["type": "set", "path": "/a", "value": 1], text: nil, ticket(1)))
        harness.loop.enqueue(client: .event(tooLong, text: nil, ticket(2)))
        harness.loop.enqueue(client: .event(["type": "merge"], text: nil, ticket(3)))
        harness.loop.enqueue(client: .request(.ping, ticket(4)))
        harness.loop.runPasses()
        let answers = harness.timeline.answers
        #expect(answers.count == 4)
        #expect(answers[0] == .ack(1))
        #expect(answers[1].errorCode == "InvalidEvent" && answers[1]["line"] == 2)
        #expect(answers[1].errorMessage?.contains("512") == true, "says what the limit is")
        #expect(answers[2].errorCode == "InvalidEvent" && answers[2]["line"] == 3)
        #expect(answers[3] == .line(["ok": true, "seq": 1]))
        #expect(harness.loop.state.rejected == 2)
    }
}
