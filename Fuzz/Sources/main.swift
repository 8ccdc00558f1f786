// mobiusd-fuzz TARGET [libFuzzer options] [corpus directories or input files]: runs one fuzz target of
// docs/reliability.md ("Fuzzing") under libFuzzer. Fuzz/run.sh builds and runs them all.
internal import CLibFuzzer
import MobiusSystem

let arguments = CommandLine.arguments
guard arguments.count >= 2, let target = FuzzTarget.all.first(where: { $0.name == arguments[1] }) else {
    let names = FuzzTarget.all.map(\.name).joined(separator: "|")
    try? FileDescriptor.standardError.writeAll(Array("usage: mobiusd-fuzz \(names) [libFuzzer arguments]\n".utf8))
    SystemProcess.exit(2)
}
FuzzTarget.selected = target
// libFuzzer reads its own flags from argv: it gets the program name followed by everything after TARGET.
let argv = CommandLine.unsafeArgv
argv[1] = argv[0]
var libFuzzerArgc = CommandLine.argc - 1
var libFuzzerArgv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv + 1
SystemProcess.exit(LLVMFuzzerRunDriver(&libFuzzerArgc, &libFuzzerArgv) { FuzzTarget.runSelected($0, $1) })
