import MobiusJSON
import Testing

@testable import MobiusDaemon

@Suite("An event the app cannot decode is rejected naming the field, not a Swift type")
struct DecodeRejectionTests {
    enum Event: Codable { case setTarget(degrees: Double) }

    @Test func decodingErrorBecomesAFieldMessage() throws {
        var caught: (any Error)?
        do {
            _ = try JSONValueDecoder().decode(Event.self, from: try JSONValue(parsing: #"{"setTarget":21}"#))
        } catch {
            caught = error
        }
        let message = EventRejection.message(for: try #require(caught))
        #expect(message == "setTarget: expected a JSON object, found a number")
    }
}
