import Foundation
import MobiusJSON
import Testing

/// `JSONEnumShape`: synthesized enum `Codable` in Swift's keyed shape (the default, Foundation's) and in the
/// `type`-tagged shape of JSON apps, plugins and D-Bus sources, both ways, and the errors of malformed input.
@Suite("Enums in the type-tagged and the Swift-keyed shape")
struct EnumShapeTests {
    struct Item: Codable, Equatable { var title: String }
    struct Typed: Codable, Equatable { var type: String }
    enum Mode: String, Codable, Equatable { case eco }
    enum Door: Codable, Equatable {
        case unlock(code: String)
        case lock
    }
    enum Event: Codable, Equatable {
        case unlock(code: String)
        case lock
        case setTarget(Double)
        case move(Int, Int)
        case note(String?)
        case add(Item)
        case maybe(Item?)
        case typed(Typed)
        case door(Door)
        case mode(Mode)
        case list([Int])
        case rename(from: String, to: String)
    }
    enum Clash: Codable, Equatable { case kind(type: String) }
    enum Power: Codable, Equatable { case prepareForSleep(args: [Bool]) }
    struct Model: Codable, Equatable {
        var doors: [Door]
        var last: Door?
    }
    /// Written by hand over `JSONValue`, as Examples/PowerPolicy does: never reshaped.
    enum Custom: Codable, Equatable {
        case on
        init(from decoder: any Decoder) throws {
            guard try JSONValue(from: decoder) == ["state": "on"] else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not on"))
            }
            self = .on
        }
        func encode(to encoder: any Encoder) throws {
            let value: JSONValue = ["state": "on"]
            try value.encode(to: encoder)
        }
    }

    static let tagged = (JSONValueEncoder(enumShape: .typeTagged), JSONValueDecoder(enumShape: .typeTagged))

    static func text(_ value: some Encodable, _ encoder: JSONValueEncoder) throws -> String {
        String(decoding: try encoder.encode(value).encoded(), as: UTF8.self)
    }

    @Test(arguments: [
        (Event.unlock(code: "1234"), #"{"type":"unlock","code":"1234"}"#),
        (.lock, #"{"type":"lock"}"#),
        (.setTarget(21.5), #"{"type":"setTarget","_0":21.5}"#),
        (.move(1, 2), #"{"type":"move","_0":1,"_1":2}"#),
        (.note("hi"), #"{"type":"note","_0":"hi"}"#),
        (.note(nil), #"{"type":"note"}"#),
        (.add(Item(title: "milk")), #"{"type":"add","title":"milk"}"#),
        (.maybe(Item(title: "milk")), #"{"type":"maybe","title":"milk"}"#),
        (.maybe(nil), #"{"type":"maybe"}"#),
        (.typed(Typed(type: "x")), #"{"type":"typed","_0":{"type":"x"}}"#),
        (.door(.lock), #"{"type":"door","_0":{"type":"lock"}}"#),
        (.mode(.eco), #"{"type":"mode","_0":"eco"}"#),
        (.list([1, 2]), #"{"type":"list","_0":[1,2]}"#),
        (.rename(from: "a", to: "b"), #"{"type":"rename","from":"a","to":"b"}"#),
    ])
    func typeTaggedBothWays(value: Event, json: String) throws {
        let (encoder, decoder) = Self.tagged
        #expect(try Self.text(value, encoder) == json)
        #expect(try decoder.decode(Event.self, from: try JSONValue(parsing: json)) == value)
    }

    @Test func membersInAnyOrderAndExtraMembersAreRead() throws {
        let decoder = Self.tagged.1
        let reordered = try JSONValue(parsing: #"{"code":"1234","sender":":1.5","type":"unlock"}"#)
        #expect(try decoder.decode(Event.self, from: reordered) == .unlock(code: "1234"))
        #expect(
            try decoder.decode(Event.self, from: try JSONValue(parsing: #"{"type":"add","_0":{"title":"a"}}"#))
                == .add(Item(title: "a")))
    }

    @Test func aDBusSignalEventDecodesIntoAPlainEnum() throws {
        let signal = try JSONValue(
            parsing: #"""
                {"type":"prepareForSleep","sender":":1.5","path":"/org/freedesktop/login1",
                 "interface":"org.freedesktop.login1.Manager","member":"PrepareForSleep","args":[true],"source":"logind"}
                """#)
        #expect(try Self.tagged.1.decode(Power.self, from: signal) == .prepareForSleep(args: [true]))
    }

    @Test func enumsInsideStructsAndArraysAreTaggedToo() throws {
        let (encoder, decoder) = Self.tagged
        let model = Model(doors: [.lock, .unlock(code: "1")], last: .lock)
        let json = #"{"doors":[{"type":"lock"},{"type":"unlock","code":"1"}],"last":{"type":"lock"}}"#
        #expect(try Self.text(model, encoder) == json)
        #expect(try decoder.decode(Model.self, from: try JSONValue(parsing: json)) == model)
    }

    @Test func rawValueAndHandWrittenEnumsKeepTheirShape() throws {
        let (encoder, decoder) = Self.tagged
        #expect(try Self.text(Mode.eco, encoder) == #""eco""#)
        #expect(try Self.text(Custom.on, encoder) == #"{"state":"on"}"#)
        #expect(try decoder.decode(Custom.self, from: ["state": "on"]) == .on)
    }

    @Test func swiftKeyedIsTheDefaultAndFoundationsShape() throws {
        let value = Event.unlock(code: "1234")
        let json = try JSONValueEncoder().encode(value)
        #expect(String(decoding: json.encoded(), as: UTF8.self) == #"{"unlock":{"code":"1234"}}"#)
        #expect(json == (try JSONValue(parsing: Array(try JSONEncoder().encode(value)))))
        #expect(try Self.text(value, JSONValueEncoder(enumShape: .swiftKeyed)) == #"{"unlock":{"code":"1234"}}"#)
        #expect(try JSONValueDecoder().decode(Event.self, from: json) == value)
        #expect(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Event.self, from: ["type": "unlock", "code": "1234"])
        }
    }

    static func message(_ json: String, as type: (some Decodable).Type = Event.self) throws -> String {
        do {
            _ = try Self.tagged.1.decode(type, from: try JSONValue(parsing: json))
        } catch let error as DecodingError {
            return JSONDecodingMessage.message(for: error)
        }
        return "decoded"
    }

    @Test(arguments: [
        (#"{"code":"1234"}"#, #"missing field "type""#),
        (#"{}"#, #"missing field "type""#),
        (#"{"type":5}"#, "type: expected a string, found a number"),
        (#"{"type":null}"#, "type: expected a string, found null"),
        (#"{"type":"jump"}"#, #"type: no case is named "jump""#),
        (#"{"type":"Unlock","code":"1"}"#, #"type: no case is named "Unlock""#),
        (#"{"type":"unlock"}"#, #"unlock: missing field "code""#),
        (#"{"type":"unlock","code":5}"#, "unlock.code: expected a string, found a number"),
        (#"{"type":"setTarget"}"#, #"setTarget: missing field "_0""#),
        (#"{"type":"setTarget","value":21}"#, #"setTarget: missing field "_0""#),
        (#"{"type":"add","title":5}"#, "add.title: expected a string, found a number"),
        (#"{"type":"add"}"#, #"add: missing field "_0""#),
        (#"{"type":"move","_0":1}"#, #"move: missing field "_1""#),
        (#"{"type":"door","_0":{"type":"open"}}"#, #"door._0.type: no case is named "open""#),
        (#""lock""#, "(top level): expected a JSON object, found a string"),
        (#"["lock"]"#, "(top level): expected a JSON object, found a JSON array"),
    ])
    func malformedInputIsNamed(json: String, message: String) throws {
        #expect(try Self.message(json) == message)
    }

    @Test func aValueLabelledTypeIsAnErrorBothWays() throws {
        let (encoder, _) = Self.tagged
        #expect(throws: EncodingError.self) { try encoder.encode(Clash.kind(type: "x")) }
        #expect(
            try Self.message(#"{"type":"kind"}"#, as: Clash.self)
                == #"kind: the case has a value labelled "type", which the type-tagged shape uses for the case name"#)
        #expect(try JSONValueEncoder().encode(Clash.kind(type: "x")) == ["kind": ["type": "x"]])
    }
}
