// mobiusd-bench: the daemon benchmarks (the project's performance targets), mobiusd and redis-server side by side in
// one run with one load generator. See README.md for the scenarios and Benchmarks/run-daemon.sh for how to run it.
import MobiusSystem

SystemProcess.ignoreBrokenPipe()
do {
    let options = try BenchOptions(arguments: CommandLine.arguments)
    let bench = try DaemonBench(options: options)
    defer { bench.removeTemporaryFiles() }
    if let scenario = options.profile {
        try bench.profile(scenario)
    } else {
        try bench.run()
    }
} catch {
    StandardError.write("mobiusd-bench: \(error)\n")
    SystemProcess.exit(1)
}
