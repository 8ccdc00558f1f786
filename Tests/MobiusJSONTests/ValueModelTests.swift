import MobiusJSON
import Testing

@Suite("Value model: numbers, objects, accessors")
struct ValueModelTests {
    @Test(
        "numbers with the same decimal value are equal and hash alike",
        arguments: [
            ("1", "1.0"), ("1", "1e0"), ("1", "10e-1"), ("0", "-0"), ("-0.0", "0"), ("100", "1E2"),
            ("0.1", "1e-1"), ("1e400", "10e399"), ("12345678901234567890123", "1.2345678901234567890123e22"),
            ("-9223372036854775808", "-9223372036854775808.000"),
        ])
    func equalNumbers(lhs: String, rhs: String) throws {
        let a = try JSONValue(parsing: lhs)
        let b = try JSONValue(parsing: rhs)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
    }

    @Test(
        "numbers with different decimal values differ",
        arguments: [
            ("1", "1.5"), ("0.1", "0.1000000000000000055511151231257827"), ("1e400", "1e401"),
            ("9223372036854775807", "9223372036854775808"), ("-1", "1"),
            ("18446744073709551615", "1.8446744073709551615e19e"),
        ])
    func differentNumbers(lhs: String, rhs: String) throws {
        let a = try JSONValue(parsing: lhs)
        guard let b = try? JSONValue(parsing: rhs) else { return }
        #expect(a != b)
    }

    @Test("exponents past 2^60 saturate: compared, hashed and converted without overflow")
    func hugeExponents() throws {
        // Found by the json fuzz target: the 19th digit of such an exponent overflowed `Int`, so comparing the number
        // or asking for its integer (a `log` request's `since`, a plugin's `id`) trapped.
        let huge = try #require(JSONNumber(literal: "1e9999999999999999999"))
        let saturated = try #require(JSONNumber(literal: "1e1152921504606846976"))
        #expect(huge.int64Value == nil && huge.uint64Value == nil)
        #expect(huge == saturated && huge.hashValue == saturated.hashValue)
        #expect(JSONNumber(literal: "-1e-99999999999999999999999") == JSONNumber(literal: "-1e-1152921504606846976"))
        // Up to 2^60 the exponent is exact.
        #expect(JSONNumber(literal: "1e1152921504606846975") != saturated)
    }

    @Test("numbers made from Swift values")
    func numbersFromSwift() {
        #expect(JSONNumber(0.1) == JSONNumber(literal: "0.1"))
        #expect(JSONNumber(Double.nan) == nil)
        #expect(JSONNumber(Int64(-5)) == JSONNumber(Double(-5.0)))
        #expect(JSONNumber(Int64(-5)).hashValue == JSONNumber(Double(-5.0))?.hashValue)
        #expect(JSONNumber(Double.infinity) == nil)
        #expect(JSONNumber(UInt64.max).literal == "18446744073709551615")
        #expect(JSONNumber(Int.min).literal == "-9223372036854775808")
        #expect(JSONNumber(Double(2.5))?.literal == "2.5")
        #expect(JSONNumber(Double(1e100))?.literal == "1e+100")
        #expect(JSONNumber(literal: "2.0")?.int64Value == 2)
        #expect(JSONNumber(literal: "2.5")?.int64Value == nil)
        #expect(JSONNumber(literal: "01") == nil)
        #expect(JSONNumber(literal: " 1") == nil)
        #expect(JSONNumber(literal: "1 ") == nil)
        #expect(JSONNumber(literal: "") == nil)
        #expect(JSONNumber(literal: "abc") == nil)
        #expect(JSONNumber(literal: "-") == nil)
        let value: JSONValue = [1, 2.5, "x", nil, true, ["k": -3]]
        #expect(encodedText(value) == #"[1,2.5,"x",null,true,{"k":-3}]"#)
    }

    @Test("objects keep insertion order; setting keeps the position, removing closes the gap")
    func objectOrder() throws {
        var object: JSONObject = ["z": 1, "a": 2]
        object["m"] = 3
        object["z"] = 4
        #expect(object.keys == ["z", "a", "m"])
        #expect(object.removeValue(forKey: "a") == 2)
        object["a"] = 5
        #expect(encodedText(.object(object)) == #"{"z":4,"m":3,"a":5}"#)
        #expect(object["nope"] == nil)
    }

    @Test("duplicate keys in input: last value wins at the first position")
    func duplicateKeys() throws {
        let value = try JSONValue(parsing: #"{"a":1,"b":2,"a":3}"#)
        #expect(encodedText(value) == #"{"a":3,"b":2}"#)
        let many = "{" + (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k7\":\"last\"}"
        let large = try JSONValue(parsing: many)
        #expect(large.objectValue?.count == 40)
        #expect(large["k7"] == "last")
        #expect(large.objectValue?.keys[7] == "k7")
    }

    @Test("large objects look up through the index and stay consistent after removal")
    func largeObjects() {
        var object = JSONObject()
        for index in 0..<100 { object["key\(index)"] = .number(JSONNumber(index)) }
        #expect(object["key73"] == 73)
        object.removeValue(forKey: "key10")
        #expect(object["key11"] == 11)
        #expect(object.position(of: "key11") == 10)
        #expect(object.count == 99)
    }

    @Test("object equality ignores member order; hashing agrees")
    func objectEquality() throws {
        let a = try JSONValue(parsing: #"{"a":1,"b":[true,null]}"#)
        let b = try JSONValue(parsing: #"{"b":[true,null],"a":1.0}"#)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != (try JSONValue(parsing: #"{"a":1,"b":[null,true]}"#)))
        #expect(Set([a, b]).count == 1)
    }

    @Test("accessors return nil for the wrong type")
    func accessors() throws {
        let value = try JSONValue(parsing: #"{"s":"x","n":7,"d":1.5,"b":false,"z":null,"a":[1],"o":{}}"#)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["n"]?.int64Value == 7)
        #expect(value["d"]?.doubleValue == 1.5)
        #expect(value["d"]?.int64Value == nil)
        #expect(value["b"]?.boolValue == false)
        #expect(value["z"]?.isNull == true)
        #expect(value["a"]?[0] == 1)
        #expect(value["a"]?[1] == nil)
        #expect(value["o"]?.objectValue?.isEmpty == true)
        #expect(value["s"]?.int64Value == nil)
        #expect(value[0] == nil)
        #expect(value["s"]?["k"] == nil)
    }
}
