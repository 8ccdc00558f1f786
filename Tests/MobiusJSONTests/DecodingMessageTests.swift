import MobiusJSON
import Testing

/// An app's event, as the new user's thermostat had it.
enum ThermostatEvent: Codable, Equatable {
    case setTarget(degrees: Double)
    case tick
}

struct Schedule: Codable, Equatable {
    var name: String
    var slots: [Int]
    var enabled: Bool
}

@Suite("Decoding errors name the field and the JSON expected, never a Swift internal type")
struct DecodingMessageTests {
    func message<T: Decodable>(_ type: T.Type, _ text: String) -> String? {
        do {
            _ = try JSONValueDecoder().decode(type, from: try JSONValue(parsing: text))
            return nil
        } catch let error as DecodingError {
            return JSONDecodingMessage.message(for: error)
        } catch {
            return "not a DecodingError: \(error)"
        }
    }

    @Test(
        "event and model mistakes",
        arguments: [
            (#"{"setTarget":21}"#, "setTarget: expected a JSON object, found a number"),
            (#"{"setTarget":{}}"#, #"setTarget: missing field "degrees""#),
            (#"{"setTarget":{"degrees":"warm"}}"#, "setTarget.degrees: expected a number, found a string"),
            (#"{"setTarget":{"degrees":null}}"#, "setTarget.degrees: expected a number, found null"),
            ("[1]", "(top level): expected a JSON object, found a JSON array"),
            (#"{"type":"tick"}"#, #"(top level): expected exactly one member, named after a case: {"CASE":{…}}"#),
            (
                #"{"tick":{},"setTarget":{}}"#,
                #"(top level): expected exactly one member, named after a case: {"CASE":{…}}"#
            ),
            (#"{"setTarget":{"degrees":{"x":1,"y":2}}}"#, "setTarget.degrees: expected a number, found a JSON object"),
        ])
    func eventMessages(_ text: String, _ expected: String) {
        #expect(message(ThermostatEvent.self, text) == expected)
    }

    @Test(
        "struct fields and array positions",
        arguments: [
            (#"{"slots":[],"enabled":true}"#, #"missing field "name""#),
            (#"{"name":1,"slots":[],"enabled":true}"#, "name: expected a string, found a number"),
            (#"{"name":"a","slots":[1,"2"],"enabled":true}"#, "slots[1]: expected an integer, found a string"),
            (#"{"name":"a","slots":{},"enabled":true}"#, "slots: expected a JSON array, found a JSON object"),
            (#"{"name":"a","slots":[],"enabled":1}"#, "enabled: expected true or false, found a number"),
            (
                #"{"name":"a","slots":[300000000000000000000],"enabled":true}"#,
                "slots[0]: Number 300000000000000000000 is not representable in Int."
            ),
        ])
    func structMessages(_ text: String, _ expected: String) {
        let text = message(Schedule.self, text)
        #expect(text == expected)
        #expect(text?.contains("JSONValue") == false && text?.contains("Dictionary") == false)
    }
}
