import Foundation
import MobiusJSON
import Testing

@testable import MobiusDaemon

/// The two tables of docs/apps.md, "Swift types as JSON", against what a typed app's codec really does: each row's
/// Swift value encoded by the daemon's codec gives the row's `type`-tagged JSON byte for byte (by default) and its
/// Swift-keyed JSON (with `enumShape: .swiftKeyed`, the same value as Foundation's JSONEncoder), decodes back to the
/// value from each, and has the row's routing key in both; each rejected event gets the row's message. Every row
/// needs an entry here and every entry a row, so the page and the code cannot drift apart.
@Suite("docs/apps.md: Swift enums as JSON")
struct AppsDocShapeTests {
    enum Reset: Codable, Equatable { case reset }
    enum Unlock: Codable, Equatable { case unlock(code: String) }
    enum Unlabelled: Codable, Equatable { case setTarget(Double) }
    enum Labelled: Codable, Equatable { case setTarget(value: Double) }
    enum Move: Codable, Equatable { case move(Int, Int) }
    enum Rename: Codable, Equatable { case rename(from: String, to: String) }
    enum Note: Codable, Equatable { case note(String?) }
    struct Item: Codable, Equatable { var title: String }
    enum Add: Codable, Equatable { case add(Item) }
    enum Mode: String, Codable, Equatable { case eco }
    enum SetMode: Codable, Equatable { case mode(Mode) }
    enum Command: String, Codable, Equatable { case start }

    /// The event type of the page's walk-through, for the rejection table.
    enum ThermostatEvent: Codable, Equatable {
        case reading(celsius: Double)
        case setTarget(celsius: Double)
        case reset
    }

    /// How one row's value behaves, through the daemon's codec for a typed app with that event and effect type.
    struct Shape {
        /// The value as the daemon encodes it (as an effect), by default and with `.swiftKeyed`.
        let tagged: () throws -> JSONValue
        let keyed: () throws -> JSONValue
        /// The value as Foundation's JSONEncoder encodes it.
        let foundation: () throws -> JSONValue
        /// Whether the JSON decodes (as an event) back to the value, by default and with `.swiftKeyed`.
        let taggedDecodesBack: (JSONValue) throws -> Bool
        let keyedDecodesBack: (JSONValue) throws -> Bool
    }

    static func shape<T: Codable & Equatable>(_ value: T) -> Shape {
        let tagged = DaemonApp<Int, T, T>(name: "shapes", model: 0, update: { model, _ in .next(model) })
        let keyed = DaemonApp<Int, T, T>(
            name: "shapes", model: 0, update: { model, _ in .next(model) }, enumShape: .swiftKeyed)
        return Shape(
            tagged: { try tagged.codec.encodeEffect(value) }, keyed: { try keyed.codec.encodeEffect(value) },
            foundation: { try JSONValue(parsing: Array(try JSONEncoder().encode(value))) },
            taggedDecodesBack: { try tagged.codec.decodeEvent($0) == value },
            keyedDecodesBack: { try keyed.codec.decodeEvent($0) == value })
    }

    /// Each row of the shapes table, by its "value" column.
    static var shapes: [String: Shape] {
        [
            ".unlock(code: \"1234\")": shape(Unlock.unlock(code: "1234")),
            ".reset": shape(Reset.reset),
            ".setTarget(21)": shape(Unlabelled.setTarget(21)),
            ".setTarget(21.5)": shape(Unlabelled.setTarget(21.5)),
            ".setTarget(value: 21)": shape(Labelled.setTarget(value: 21)),
            ".move(1, 2)": shape(Move.move(1, 2)),
            ".rename(from: \"a\", to: \"b\")": shape(Rename.rename(from: "a", to: "b")),
            ".note(\"hi\")": shape(Note.note("hi")),
            ".note(nil)": shape(Note.note(nil)),
            ".add(Item(title: \"milk\"))": shape(Add.add(Item(title: "milk"))),
            ".mode(.eco)": shape(SetMode.mode(.eco)),
            "Command.start": shape(Command.start),
        ]
    }

    static let page: String = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/apps.md").path
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }()

    /// The body rows of the table that follows the line starting with `marker`, as cells without their backticks.
    static func table(after marker: String) -> [[String]] {
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(marker) }) else { return [] }
        let rows = lines[(start + 1)...].prefix { $0.hasPrefix("|") }.dropFirst(2)
        return rows.map { row in
            row.split(separator: "|").map { cell in
                let text = cell.trimmingCharacters(in: .whitespaces)
                return text.hasPrefix("`") && text.hasSuffix("`") && text.count > 1
                    ? String(text.dropFirst().dropLast()) : text
            }
        }
    }

    @Test("every row of the shapes table is what the codec writes and reads, and every shape here has a row")
    func shapesTable() throws {
        let rows = Self.table(after: "<!-- shapes:")
        #expect(rows.count == Self.shapes.count, "rows: \(rows.map { $0.count > 1 ? $0[1] : "?" })")
        var seen = Set<String>()
        for row in rows {
            try #require(row.count == 5, "\(row)")
            let (value, json, keyedJSON, key) = (row[1], row[2], row[3], row[4])
            seen.insert(value)
            let shape = try #require(Self.shapes[value], "no Swift value in this test for the row \(value)")
            let tagged = try shape.tagged()
            #expect(String(decoding: tagged.encoded(), as: UTF8.self) == json, "\(value)")
            #expect(try shape.taggedDecodesBack(try JSONValue(parsing: json)), "\(value): \(json) decodes back")
            #expect(EffectRoutingKey.of(tagged) == key, "\(value): routing key")
            let keyed = try shape.keyed()
            #expect(String(decoding: keyed.encoded(), as: UTF8.self) == keyedJSON, "\(value) with .swiftKeyed")
            #expect(try shape.foundation() == keyed, "\(value): Foundation's JSONEncoder writes the .swiftKeyed JSON")
            #expect(
                try shape.keyedDecodesBack(try JSONValue(parsing: keyedJSON)), "\(value): \(keyedJSON) decodes back")
            #expect(EffectRoutingKey.of(keyed) == key, "\(value): routing key with .swiftKeyed")
        }
        #expect(seen == Set(Self.shapes.keys), "values here without a row: \(Set(Self.shapes.keys).subtracting(seen))")
    }

    /// Each row of the rejection table, by the event sent.
    static let rejections: Set<String> = [
        #"{"type":"jump"}"#, #"{"celsius":18.5}"#, #"{"type":5}"#, #"{"type":"reading","celsius":"cold"}"#,
        #"{"type":"reading"}"#, #"{"type":"setTarget","target":21}"#, #"{"reading":{"celsius":18.5}}"#, #""reset""#,
    ]

    @Test("every row of the rejection table is the InvalidEvent message the daemon sends for that event")
    func rejectionTable() throws {
        let app = DaemonApp<Int, ThermostatEvent, ThermostatEvent>(
            name: "thermostat", model: 0, update: { model, _ in .next(model) })
        let rows = Self.table(after: "<!-- rejections:")
        #expect(Set(rows.compactMap(\.first)) == Self.rejections)
        let harness = LoopHarness(app)
        for (index, row) in rows.enumerated() {
            try #require(row.count == 2, "\(row)")
            harness.loop.enqueue(client: .event(try JSONValue(parsing: row[0]), text: nil, ticket(index + 1)))
        }
        harness.loop.runPasses()
        let answers = harness.timeline.answers
        try #require(answers.count == rows.count)
        for (row, answer) in zip(rows, answers) {
            #expect(answer.errorCode == "InvalidEvent", "\(row[0])")
            #expect(answer.errorMessage == "the app rejected the event: " + row[1], "\(row[0])")
        }
        #expect(harness.loop.state.seq == 0)
    }

    @Test("the page's examples of Swift-keyed rejections are what a .swiftKeyed app answers")
    func swiftKeyedRejections() throws {
        let app = DaemonApp<Int, ThermostatEvent, ThermostatEvent>(
            name: "thermostat", model: 0, update: { model, _ in .next(model) }, enumShape: .swiftKeyed)
        let examples = [
            (#"{"type":"reset"}"#, #"(top level): expected exactly one member, named after a case: {"CASE":{…}}"#),
            (#"{"setTarget":21}"#, "setTarget: expected a JSON object, found a number"),
        ]
        let prose = Self.page.replacingOccurrences(of: "\n", with: " ")
        let harness = LoopHarness(app)
        for (index, (event, message)) in examples.enumerated() {
            #expect(prose.contains("`\(event)` is `\(message)`"), "docs/apps.md shows \(event)")
            harness.loop.enqueue(client: .event(try JSONValue(parsing: event), text: nil, ticket(index + 1)))
        }
        harness.loop.runPasses()
        let answers = harness.timeline.answers
        try #require(answers.count == examples.count)
        for ((event, message), answer) in zip(examples, answers) {
            #expect(answer.errorMessage == "the app rejected the event: " + message, "\(event)")
        }
    }

    @Test("the walk-through declares the ThermostatEvent the rejection table was checked with")
    func walkThroughEvent() {
        let declaration = """
            public enum ThermostatEvent: Codable, Equatable, Sendable {
                case reading(celsius: Double)
                case setTarget(celsius: Double)
                case reset
            }
            """
        #expect(Self.page.contains(declaration))
    }
}
