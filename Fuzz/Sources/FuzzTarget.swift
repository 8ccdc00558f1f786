/// One fuzz target: a name for the command line, and what it does with one input (trapping on a broken oracle,
/// which libFuzzer reports as a crash and saves the input for).
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable ([UInt8]) -> Void

    /// Every target, as `mobiusd-fuzz NAME` selects it.
    static let all: [FuzzTarget] = [
        FuzzTarget(name: "request", run: RequestFuzz.run),
        FuzzTarget(name: "json", run: JSONFuzz.run),
        FuzzTarget(name: "pointer", run: PointerFuzz.run),
        FuzzTarget(name: "config", run: ConfigFuzz.run),
        FuzzTarget(name: "plugin", run: PluginFuzz.run),
        FuzzTarget(name: "dbus", run: DBusFuzz.run),
        FuzzTarget(name: "journal", run: JournalFuzz.run),
    ]

    /// The target `main` picked. Written once before libFuzzer starts, then only read, on libFuzzer's thread.
    nonisolated(unsafe) static var selected: FuzzTarget?
}

extension FuzzTarget {
    /// Runs the selected target on one input from libFuzzer.
    static func runSelected(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        guard let target = selected else { return 0 }
        target.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
}

/// libFuzzer's own `main`, which the fuzzer library drags into the link although `main.swift` replaces it, refers to
/// this symbol; `main.swift` hands libFuzzer the same function.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.runSelected(data, size)
}

/// Stops the run with `message` when an oracle does not hold: the trap is libFuzzer's crash, and the message says
/// which promise broke.
func check(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    guard !condition else { return }
    fatalError("oracle failed: \(message())", file: file, line: line)
}
