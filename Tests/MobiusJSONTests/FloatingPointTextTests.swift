import Foundation
import MobiusJSON
import Testing

/// A typed model's readings, as an app author would write one; members in sorted order, as Foundation's
/// `.sortedKeys` writes them (its default order is a hash order).
struct Reading: Codable, Equatable {
    var gain: Float
    var history: [Double]
    var limit: Double?
    var target: Double
}

@Suite("Doubles and floats are written as Foundation's JSONEncoder writes them")
struct FloatingPointTextTests {
    /// The same text from both encoders, byte for byte.
    func expectSameText<T: Codable & Equatable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ours = encodedText(try JSONValueEncoder().encode(value))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let theirs = String(decoding: try encoder.encode(value), as: UTF8.self)
        #expect(ours == theirs, sourceLocation: sourceLocation)
        #expect(try JSONValueDecoder().decode(T.self, from: try JSONValue(parsing: ours)) == value)
    }

    func literal(_ value: Double) -> String? { JSONNumber(value)?.literal }

    @Test("an integral double is written without .0: 21.0 becomes 21")
    func integralDouble() throws {
        #expect(encodedText(try JSONValueEncoder().encode(["target": 21.0])) == #"{"target":21}"#)
        #expect(literal(21) == "21")
        #expect(literal(-0.0) == "-0")
        #expect(literal(1e16) == "1e+16")
        #expect(literal(0.5) == "0.5")
        try expectSameText(Reading(gain: 2, history: [20, 20.5, -0.0, 1e15, 1e16], limit: 100, target: 21))
    }

    @Test("generated doubles and floats of every shape give Foundation's text", arguments: 0..<4)
    func generated(seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed) &+ 91)
        var doubles: [Double] = []
        var floats: [Float] = []
        for _ in 0..<250 {
            let double: Double
            switch random.next() % 6 {
            case 0: double = Double(Int64.random(in: -1_000_000...1_000_000, using: &random))
            case 1: double = Double(Int64.random(in: Int64.min...Int64.max, using: &random))
            case 2: double = Double.random(in: -1000...1000, using: &random)
            case 3: double = Double(bitPattern: random.next())
            case 4: double = Double(sign: .plus, exponent: Int.random(in: -1074...1023, using: &random), significand: 1)
            default: double = Double(Int.random(in: -100...100, using: &random)) / 4
            }
            if double.isFinite { doubles.append(double) }
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            if float.isFinite { floats.append(float) }
        }
        try expectSameText(doubles)
        try expectSameText(floats)
        try expectSameText(Reading(gain: floats[0], history: doubles, limit: doubles.last, target: doubles[0]))
    }
}
