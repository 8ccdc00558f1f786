import Foundation
import MobiusJSON

// Compares MobiusJSON with Foundation's JSONSerialization on the daemon's typical inputs:
// small event objects. Prints a table and `bench name=... ours=... foundation=... ratio=...`
// lines for scripts. Usage: mobius-json-bench [iterations] [--profile-parse]
// (`--profile-parse` loops over our parser only, for `perf record`).

let arguments = CommandLine.arguments.dropFirst()
let iterations = arguments.first.flatMap { Int($0) } ?? 200_000

let small = #"{"type":"increment","by":1,"tag":"abc"}"#
let medium =
    #"{"type":"sensor.reading","id":"7f3a9c2e-51b4-4d0e-9a7c-2b8f4e6d1a30","seq":1234567,"#
    + #""values":[12.5,13.25,-4.0,1e-3,42],"ok":true,"unit":"celsius","#
    + #""meta":{"host":"node-17","zone":"eu-west","retry":null}}"#

/// Runs `body` `iterations` times and returns operations per second.
func rate(_ iterations: Int, _ body: () -> Void) -> Double {
    for _ in 0..<min(iterations / 10, 10_000) { body() }  // warm up
    let clock = ContinuousClock()
    let elapsed = clock.measure {
        for _ in 0..<iterations { body() }
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Double(iterations) / seconds
}

struct Row {
    let name: String
    let ours: Double
    let foundation: Double
}

var rows: [Row] = []
var sink = 0

if arguments.contains("--profile-parse") {
    for text in [small, medium] {
        let bytes = Array(text.utf8)
        let perSecond = rate(iterations) {
            let value = try! bytes.withUnsafeBytes { try JSONValue(parsing: $0) }
            if case .object(let object) = value { sink &+= object.count }
        }
        print("parse \(bytes.count) bytes: \(Int(perSecond))/s")
    }
    exit(0)
}

for (name, text) in [("small", small), ("medium", medium)] {
    let bytes = Array(text.utf8)
    let data = Data(text.utf8)
    precondition((try? JSONValue(parsing: bytes)) != nil, "benchmark input must parse")

    let oursParse = rate(iterations) {
        let value = try! bytes.withUnsafeBytes { try JSONValue(parsing: $0) }
        if case .object(let object) = value { sink &+= object.count }
    }
    let foundationParse = rate(iterations) {
        let object = try! JSONSerialization.jsonObject(with: data)
        if let dictionary = object as? [String: Any] { sink &+= dictionary.count }
    }
    rows.append(Row(name: "parse-\(name)", ours: oursParse, foundation: foundationParse))

    let value = try! JSONValue(parsing: bytes)
    let foundationObject = try! JSONSerialization.jsonObject(with: data)
    var output: [UInt8] = []
    output.reserveCapacity(512)
    let oursEncode = rate(iterations) {
        output.removeAll(keepingCapacity: true)
        value.encode(into: &output)
        sink &+= output.count
    }
    let foundationEncode = rate(iterations) {
        let encoded = try! JSONSerialization.data(withJSONObject: foundationObject)
        sink &+= encoded.count
    }
    rows.append(Row(name: "encode-\(name)", ours: oursEncode, foundation: foundationEncode))
    let oursEncodeFresh = rate(iterations) {
        sink &+= value.encoded().count
    }
    rows.append(Row(name: "encode-fresh-\(name)", ours: oursEncodeFresh, foundation: foundationEncode))
}

func format(_ value: Double) -> String {
    let thousands = (value / 1000).rounded()
    return "\(Int(thousands))k/s"
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

print(pad("benchmark", 22) + pad("MobiusJSON", 14) + pad("JSONSerialization", 20) + "ratio")
for row in rows {
    let ratio = row.ours / row.foundation
    print(
        pad(row.name, 22) + pad(format(row.ours), 14) + pad(format(row.foundation), 20)
            + String(format: "%.2fx", ratio))
}
for row in rows {
    print(
        "bench name=\(row.name) ours=\(Int(row.ours)) foundation=\(Int(row.foundation)) "
            + String(format: "ratio=%.3f", row.ours / row.foundation))
}
if sink == 42 { print("") }
