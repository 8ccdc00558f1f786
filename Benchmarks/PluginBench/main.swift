// mobiusd-plugin-bench: how fast a plugin answers over pipes, next to the bare pipe round trip.
//
//   mobiusd-plugin-bench pipe [N]                      one process pair ping-pong: round trips/s
//   mobiusd-plugin-bench effects [N] [W] -- PLUGIN...   echo effects, W in flight (1 = one at a time): effects/s
//   mobiusd-plugin-bench updates [N] [B] -- PLUGIN...   update (B = 1) or updateBatch of B events: events/s
//
// The plugin is started as mobiusd starts plugins (PipedProcess, MOBIUSD_PLUGIN=1) and must handle the effect key
// "echo" (effects) or be an update plugin whose update accepts {"type":"inc"} (updates): the SDK fixtures do.
import MobiusJSON
import MobiusSystem

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? ""
let split = arguments.firstIndex(of: "--")
let numbers = arguments[1..<(split ?? arguments.count)].compactMap { Int($0) }
let plugin = split.map { Array(arguments[($0 + 1)...]) } ?? []

func fail(_ message: String) -> Never {
    try? FileDescriptor.standardError.writeAll(Array("mobiusd-plugin-bench: \(message)\n".utf8))
    SystemProcess.exit(1)
}

func seconds(since start: UInt64) -> Double {
    Double(SystemProcess.monotonicNanoseconds() - start) / 1e9
}

func report(_ what: String, count: Int, start: UInt64) {
    let elapsed = seconds(since: start)
    let line = "\(what): \(count) in \(Int(elapsed * 1000)) ms = \(Int(Double(count) / elapsed)) /s\n"
    try? FileDescriptor.standardOutput.writeAll(Array(line.utf8))
}

do {
    try run()
} catch {
    fail("\(error)")
}

func run() throws {
    switch mode {
    case "echo":
        // The child of `pipe`: echoes every line back.
        var reader = BenchLines(FileDescriptor(rawValue: 0))
        while let line = reader.next() { try? FileDescriptor.standardOutput.writeAll(line + [0x0A]) }
    case "pipe":
        let count = numbers.first ?? 100_000
        let me = CommandLine.arguments[0]
        let child = try PipedProcess.spawn(program: me, arguments: [me, "echo"], environment: [])
        var reader = BenchLines(child.output)
        let line = Array(#"{"jsonrpc":"2.0","id":1,"result":{}}"#.utf8) + [0x0A]
        let start = SystemProcess.monotonicNanoseconds()
        for _ in 0..<count {
            try child.input.writeAll(line)
            guard reader.next() != nil else { fail("echo child ended") }
        }
        report("pipe round trips (one process pair, \(line.count)-byte lines)", count: count, start: start)
        child.input.close()
    case "effects", "updates":
        guard !plugin.isEmpty else { fail("give the plugin's command after --") }
        let count = numbers.first ?? 100_000
        let driver = try BenchPlugin(plugin)
        let name = plugin.last ?? ""
        if mode == "effects" {
            let window = max(1, numbers.count > 1 ? numbers[1] : 64)
            let start = SystemProcess.monotonicNanoseconds()
            try driver.effects(count: count, window: window)
            report("effects, \(window) in flight (\(name))", count: count, start: start)
        } else {
            let batch = max(1, numbers.count > 1 ? numbers[1] : 1)
            let start = SystemProcess.monotonicNanoseconds()
            try driver.updates(count: count, batch: batch)
            report(
                "update events, \(batch == 1 ? "one at a time" : "batches of \(batch)") (\(name))", count: count,
                start: start)
        }
        driver.close()
    default:
        fail("usage: mobiusd-plugin-bench pipe [N] | effects [N] [W] -- PLUGIN... | updates [N] [B] -- PLUGIN...")
    }
}
