import Foundation
import MobiusJSON
import Testing

/// Our parser against Foundation's JSONSerialization on generated and fuzzed input.
/// Every disagreement must be one of the intentional ones listed in ``KnownDisagreement``.
@Suite("Differential: parser vs JSONSerialization")
struct FoundationDifferentialTests {
    @Test("generated documents: both accept and agree on every value", arguments: [1, 2, 3, 4] as [UInt64])
    func generatedDocuments(seed: UInt64) throws {
        var generator = DocumentGenerator(random: SeededGenerator(seed: seed))
        for _ in 0..<200 {
            let text = generator.text(generator.value(depth: 0))
            let bytes = Array(text.utf8)
            let ours = try JSONValue(parsing: bytes)
            guard let theirs = foundationParse(bytes) else {
                Issue.record("Foundation rejected generated input \(text.debugDescription)")
                continue
            }
            #expect(agree(ours, theirs), "\(text.debugDescription)")
        }
    }

    @Test(
        "fuzzed documents: both accept or both reject, except the known disagreements",
        arguments: [11, 12, 13, 14] as [UInt64])
    func fuzzedDocuments(seed: UInt64) throws {
        var generator = DocumentGenerator(random: SeededGenerator(seed: seed))
        var random = SeededGenerator(seed: seed &* 7919)
        var rejectedByBoth = 0
        for _ in 0..<400 {
            var bytes = Array(generator.text(generator.value(depth: 0)).utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) { mutate(&bytes, using: &random) }
            let ours = parseResult(bytes)
            let theirs = FoundationVerdict(bytes)
            switch (ours, theirs.value) {
            case (.success(let value), .some(let object)):
                #expect(agree(value, object), "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            case (.failure, nil):
                rejectedByBoth += 1
            case (.failure(let error), .some):
                #expect(
                    KnownDisagreement.classify(ours: error, foundation: nil) != nil,
                    "only Foundation accepts \(String(decoding: bytes, as: UTF8.self).debugDescription): \(error)")
            case (.success, nil):
                #expect(
                    KnownDisagreement.classify(ours: nil, foundation: theirs.message) != nil,
                    "only we accept \(String(decoding: bytes, as: UTF8.self).debugDescription): \(theirs.message)")
            }
        }
        #expect(rejectedByBoth > 100)  // the mutations do break documents
    }

    private func mutate(_ bytes: inout [UInt8], using random: inout SeededGenerator) {
        let interesting =
            Array(#"{}[]",:\"0123456789-+.eEtrufalsn /u"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF, 0x09]
        let byte =
            Bool.random(using: &random)
            ? interesting.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
        let position = Int.random(in: 0...bytes.count, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0 where position < bytes.count: bytes[position] = byte
        case 1 where position < bytes.count: bytes.remove(at: position)
        default: bytes.insert(byte, at: position)
        }
    }
}

/// Foundation's result and, when it rejects, its explanation.
struct FoundationVerdict {
    let value: Any?
    let message: String

    init(_ bytes: [UInt8]) {
        do {
            value = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            message = ""
        } catch {
            value = nil
            message = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
        }
    }
}

/// The intentional differences from JSONSerialization (docs/json.md lists them too).
enum KnownDisagreement: CaseIterable {
    /// Foundation accepts `[1,]` and `{"a":1,}`; RFC 8259 does not, nor do we.
    case trailingComma
    /// Foundation skips a leading UTF-8 byte-order mark; RFC 8259 says a parser MAY, we reject it.
    case byteOrderMark
    /// Foundation rejects numbers beyond Double's range (`1e400`); we keep their text.
    case unrepresentableNumber

    static func classify(ours: JSONParseError?, foundation: String?) -> KnownDisagreement? {
        if let ours, ours.message.hasPrefix("trailing comma") { return .trailingComma }
        if let ours, ours.offset == 0, ours.message.contains("\u{FEFF}") { return .byteOrderMark }
        if let foundation, foundation.contains("not representable") { return .unrepresentableNumber }
        return nil
    }
}
