import MobiusJSON
import Testing

@testable import MobiusDaemon

/// The store's and the counter's rules as docs/apps.md, "The built-in apps", states them, where StoreAppTests and
/// the counter's tests do not already hold them.
@Suite("docs/apps.md: the built-in apps' rules")
struct AppsDocStoreTests {
    let store = StoreApp.make()

    func apply(_ event: JSONValue, to model: JSONValue) throws -> JSONValue {
        try store.update(model, try store.codec.decodeEvent(event)).model ?? model
    }

    @Test("the page's set examples")
    func setExamples() throws {
        #expect(try apply(["type": "set", "path": "/a/b/c", "value": 1], to: [:]) == ["a": ["b": ["c": 1]]])
        #expect(try apply(["type": "set", "path": "/list/-", "value": 2], to: ["list": [1]]) == ["list": [1, 2]])
        #expect(throws: EventRejection.self) {
            try apply(["type": "set", "path": "/list/1", "value": 2], to: ["list": [1]])
        }
        #expect(try apply(["type": "set", "path": "/list/0", "value": 9], to: ["list": [1]]) == ["list": [9]])
        #expect(try apply(["type": "set", "path": "/list/-", "value": 1], to: [:]) == ["list": ["-": 1]])
        #expect(try apply(["type": "set", "path": "/7", "value": 1], to: [:]) == ["7": 1], "digits name a member")
    }

    @Test("a null value is a value, other members are ignored")
    func valuesAndExtraMembers() throws {
        #expect(try apply(["type": "set", "path": "/a", "value": nil], to: [:]) == ["a": nil])
        #expect(try apply(["type": "set", "path": "/a", "value": 1, "note": "x"], to: [:]) == ["a": 1])
    }

    @Test("delete of the empty pointer makes the model null; emptied containers stay")
    func deleteExamples() throws {
        #expect(try apply(["type": "delete", "path": ""], to: ["a": 1]) == nil)
        #expect(try apply(["type": "delete", "path": "/a/b"], to: ["a": ["b": 1]]) == ["a": [:]])
    }

    @Test("the counter ignores other members and beeps below zero too")
    func counter() throws {
        let counter = CounterApp.make()
        let event = try counter.codec.decodeEvent(["type": "increment", "by": 5])
        #expect(try counter.update(3, event).model == 4)
        let below = try counter.update(-2, try counter.codec.decodeEvent(["type": "decrement"]))
        #expect(below.model == nil)
        #expect(below.effects == [["type": "beep"]])
        #expect(throws: (any Error).self) { try counter.codec.decodeModel("7") }
    }
}
