/// `mobiusd-bench`'s command line.
struct BenchOptions {
    var mobiusd: String
    var redisServer = "redis-server"
    var runs = 5
    var scenarios = Set(Scenario.allCases)
    var events = 1_000_000
    var roundTrips = 50_000
    var subscribers = 1000
    var fanOutEvents = 200
    /// Send periods of the paced scenario, in microseconds.
    var pacings = [1000, 200]
    var pacedSeconds = 4.0
    var pacedWarmUpEvents = 200
    var idleSeconds = 2.0
    /// Events of the durable scenario's pipelined ingest, per server and run.
    var durableEvents = 200_000
    /// Events journaled before the recovery measurement.
    var recoveryEvents = 1_000_000
    /// Profile mode: run only this scenario against `profileServer` alone, `runs` times, after writing its pid to
    /// `pidFile`.
    var profile: String?
    var profileServer = ServerKind.mobiusd
    var pidFile: String?

    static let usage = """
        Usage: mobiusd-bench [--mobiusd PATH] [--redis-server PATH] [--runs N] [--scenarios LIST]
                             [--events N] [--round-trips N] [--subscribers N] [--fan-out-events N]
                             [--pacings MICROSECONDS,...] [--paced-seconds S] [--paced-warm-up N] [--idle-seconds S]
                             [--durable-events N] [--recovery-events N]
                             [--profile SCENARIO [--profile-server mobiusd|redis] --pid-file PATH]
        Starts its own mobiusd (default: next to this binary) and redis-server on Unix sockets in a temp dir and
        measures both with the same load generator. Scenarios (default all, in this order): idle, paced, ingest,
        round-trip, fan-out, durable. Profile SCENARIO: ingest-off, ingest-on, round-trip, fan-out, paced, against
        one server (default mobiusd), for perf or valgrind to watch.
        """

    init(arguments: [String]) throws(BenchError) {
        let program = arguments.first ?? "mobiusd-bench"
        let directory = program.contains("/") ? String(program[..<program.lastIndex(of: "/")!]) : "."
        mobiusd = directory + "/mobiusd"
        var remaining = arguments.dropFirst()
        while let flag = remaining.popFirst() {
            func value() throws(BenchError) -> String {
                guard let next = remaining.popFirst() else { throw BenchError("\(flag) needs a value\n\(Self.usage)") }
                return next
            }
            func count(_ given: String? = nil) throws(BenchError) -> Int {
                let text: String
                if let given { text = given } else { text = try value() }
                guard let number = Int(text.filter { $0 != "_" }), number > 0 else {
                    throw BenchError("\(flag) needs a positive integer, got \(text)")
                }
                return number
            }
            func seconds() throws(BenchError) -> Double {
                let text = try value()
                guard let number = Double(text), number > 0, number.isFinite else {
                    throw BenchError("\(flag) needs a positive number of seconds, got \(text)")
                }
                return number
            }
            switch flag {
            case "--mobiusd": mobiusd = try value()
            case "--redis-server": redisServer = try value()
            case "--runs": runs = try count()
            case "--scenarios": scenarios = try Scenario.parse(try value())
            case "--events": events = try count()
            case "--round-trips": roundTrips = try count()
            case "--subscribers": subscribers = try count()
            case "--fan-out-events": fanOutEvents = try count()
            case "--pacings":
                var periods: [Int] = []
                for item in try value().split(separator: ",") { periods.append(try count(String(item))) }
                pacings = periods
            case "--paced-seconds": pacedSeconds = try seconds()
            case "--paced-warm-up": pacedWarmUpEvents = try count()
            case "--idle-seconds": idleSeconds = try seconds()
            case "--durable-events": durableEvents = try count()
            case "--recovery-events": recoveryEvents = try count()
            case "--profile": profile = try value()
            case "--profile-server":
                let name = try value()
                guard let kind = ServerKind(rawValue: name) else {
                    throw BenchError("--profile-server takes mobiusd or redis, not \(name)\n\(Self.usage)")
                }
                profileServer = kind
            case "--pid-file": pidFile = try value()
            case "--help", "-h": throw BenchError(Self.usage)
            default: throw BenchError("unknown option \(flag)\n\(Self.usage)")
            }
        }
    }
}
