import Foundation
import MobiusJSON
import Testing

struct Address: Codable, Equatable {
    var street: String
    var zip: Int?
}

enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case rect(Double, Double)
    case labeled(String, inner: Address?)
    case empty
}

indirect enum Tree: Codable, Equatable {
    case leaf(Int)
    case node([Tree], tag: String?)
}

struct Everything: Codable, Equatable {
    var int8: Int8 = -128
    var uint16: UInt16 = 65535
    var int32: Int32 = -7
    var int64: Int64 = .min
    var uint64: UInt64 = .max
    var int = 42
    var double = 0.1
    var float: Float = 1.1
    var bool = true
    var string = "héllo \"quoted\" \n 😀"
    var missing: Int? = nil
    var present: String? = "here"
    var list = [1, 2, 3]
    var nested = [["a"], [], ["b", "c"]]
    var dictionary = ["home": Address(street: "Main", zip: 12345), "work": Address(street: "Side", zip: nil)]
    var shapes: [Shape] = [.circle(radius: 2.5), .rect(1, 2), .labeled("x", inner: nil), .empty]
    var tree = Tree.node([.leaf(1), .node([], tag: "t")], tag: nil)
    var raw: JSONValue = ["kept": [1, "two", nil], "big": 1.5]
}

/// Uses superEncoder/superDecoder and explicit nested containers.
struct Custom: Codable, Equatable {
    var base: Address
    var pair: [Int]
    var inner: [String: Int]

    enum CodingKeys: String, CodingKey { case pair, inner, base }
    enum InnerKeys: String, CodingKey { case value }

    init(base: Address, pair: [Int], inner: [String: Int]) {
        self.base = base
        self.pair = pair
        self.inner = inner
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        base = try Address(from: container.superDecoder())
        var unkeyed = try container.nestedUnkeyedContainer(forKey: .pair)
        pair = [try unkeyed.decode(Int.self)]
        let nested = try unkeyed.nestedContainer(keyedBy: InnerKeys.self)
        pair.append(try nested.decode(Int.self, forKey: .value))
        inner = try [String: Int](from: container.superDecoder(forKey: .inner))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try base.encode(to: container.superEncoder())
        var unkeyed = container.nestedUnkeyedContainer(forKey: .pair)
        try unkeyed.encode(pair[0])
        var nested = unkeyed.nestedContainer(keyedBy: InnerKeys.self)
        try nested.encode(pair[1], forKey: .value)
        try inner.encode(to: container.superEncoder(forKey: .inner))
    }
}

@Suite("Codable bridge vs JSONEncoder/JSONDecoder")
struct CodableBridgeTests {
    /// Our tree for `value` equals Foundation's text parsed back, and both decoders read it back.
    func checkAgainstFoundation<T: Codable & Equatable>(_ value: T) throws {
        let ours = try JSONValueEncoder().encode(value)
        let foundationText = try JSONEncoder().encode(value)
        #expect(ours == (try JSONValue(parsing: [UInt8](foundationText))))
        #expect(try JSONValueDecoder().decode(T.self, from: ours) == value)
        #expect(try JSONDecoder().decode(T.self, from: Data(ours.encoded())) == value)
    }

    @Test("structs, enums with payloads, optionals, arrays and dictionaries encode like Foundation")
    func representativeTypes() throws {
        try checkAgainstFoundation(Everything())
        try checkAgainstFoundation(Custom(base: Address(street: "S", zip: 1), pair: [3, 4], inner: ["x": 1]))
        try checkAgainstFoundation([Shape.rect(0, -0.5), .circle(radius: 1e300)])
        try checkAgainstFoundation(["k": [Tree.leaf(-1)]])
        try checkAgainstFoundation(Optional<Int>.none)
        try checkAgainstFoundation("top-level string")
        try checkAgainstFoundation([Int8.min, 0, Int8.max])
    }

    @Test("JSONValue keeps its exact numbers and member order through the bridge")
    func jsonValuePassesThrough() throws {
        let raw = try JSONValue(parsing: #"{"z":12345678901234567890123,"a":1e400,"m":[-0]}"#)
        let encoded = try JSONValueEncoder().encode(["raw": raw])
        #expect(encodedText(encoded) == #"{"raw":{"z":12345678901234567890123,"a":1e400,"m":[-0]}}"#)
        #expect(try JSONValueDecoder().decode([String: JSONValue].self, from: encoded)["raw"] == raw)
    }

    @Test(
        "decoding errors match Foundation's case and coding path",
        arguments: [
            #"{"street":1}"#, #"{"zip":1}"#, #"{"street":"s","zip":1.5}"#, #"{"street":"s","zip":"1"}"#, "[]",
            #"{"street":null}"#, #"{"street":"s","zip":99999999999999999999}"#,
        ])
    func decodingErrors(text: String) throws {
        let value = try JSONValue(parsing: text)
        let ours = decodingError { try JSONValueDecoder().decode(Address.self, from: value) }
        let theirs = decodingError { try JSONDecoder().decode(Address.self, from: Data(text.utf8)) }
        #expect(ours != nil)
        #expect(ours?.kind == theirs?.kind, "ours: \(String(describing: ours)) theirs: \(String(describing: theirs))")
        if ours?.kind == "dataCorrupted" {
            // Intentional difference: Foundation reports number range errors with an empty path.
            #expect(theirs?.path == [])
            #expect(ours?.path == ["zip"])
        } else {
            #expect(ours?.path == theirs?.path)
        }
    }

    @Test("integers are range-checked; nested paths name array positions", arguments: ["[1,300]", "[1,-1]", "[1,2.5]"])
    func integerRanges(text: String) throws {
        let value = try JSONValue(parsing: text)
        let ours = decodingError { try JSONValueDecoder().decode([UInt8].self, from: value) }
        let theirs = decodingError { try JSONDecoder().decode([UInt8].self, from: Data(text.utf8)) }
        #expect(ours?.kind == "dataCorrupted")
        #expect(ours?.kind == theirs?.kind)
        #expect(ours?.path == ["Index 1"])
        #expect(theirs?.path == [])  // Foundation names no path for range errors
    }

    @Test("non-finite floating point values cannot be encoded")
    func nonFinite() {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Float.infinity) }
    }

    @Test("JSONValue decodes from Foundation's decoder and encodes through Foundation's encoder")
    func jsonValueWithFoundation() throws {
        let text = #"{"a":[1,2.5,"x",null,true,{"b":false}],"c":-9223372036854775808,"d":18446744073709551615}"#
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(decoded == (try JSONValue(parsing: text)))
        let reencoded = try JSONEncoder().encode(decoded)
        #expect(try JSONValue(parsing: [UInt8](reencoded)) == decoded)
    }

    private func decodingError(_ body: () throws -> some Any) -> (kind: String, path: [String])? {
        do {
            _ = try body()
            return nil
        } catch let error as DecodingError {
            switch error {
            case .typeMismatch(_, let context): return ("typeMismatch", context.codingPath.map(\.stringValue))
            case .valueNotFound(_, let context): return ("valueNotFound", context.codingPath.map(\.stringValue))
            case .keyNotFound(_, let context): return ("keyNotFound", context.codingPath.map(\.stringValue))
            case .dataCorrupted(let context): return ("dataCorrupted", context.codingPath.map(\.stringValue))
            @unknown default: return ("unknown", [])
            }
        } catch {
            return ("other", [])
        }
    }
}
