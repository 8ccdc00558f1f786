import Glibc
import MobiusJSON

/// The whole benchmark: per run, a fresh mobiusd and redis-server (start-up time and idle RSS measured there),
/// then scenarios 1-4 against both, alternating which server goes first.
struct DaemonBench {
    let options: BenchOptions
    let directory: String
    let configPath: String

    init(options: BenchOptions) throws(BenchError) {
        self.options = options
        var template = Array("/tmp/mobiusd-bench.XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw BenchError.system("mkdtemp") }
        directory = String(cString: created)
        configPath = directory + "/mobiusd.json"
        // The default 256 connections per user would refuse the 1,000 subscribers (all ours, one uid).
        try Self.writeFile(
            configPath,
            #"{"update":{"builtin":"counter"},"socket":{"maxConnections":8192,"maxConnectionsPerUser":8192}}"# + "\n")
        try Self.raiseDescriptorLimit()
    }

    func removeTemporaryFiles() {
        for name in ["mobiusd.json", "mobiusd.sock", "redis.sock", "mobiusd.log", "redis.log"] {
            unlink(directory + "/" + name)
        }
        rmdir(directory)
    }

    func run() throws(BenchError) {
        let loadBefore = Self.loadAverage()
        print(
            "mobiusd-bench: mobiusd \(options.mobiusd), \(options.redisServer); \(options.runs) runs; load \(loadBefore)"
        )
        let capacity = try GeneratorCapacity.measure(count: options.events)
        print(
            "load generator alone (socketpair, no server): push mobiusd events \(Format.figure(capacity.pushPerSecond[.mobiusd]!))/s,"
                + " redis PUBLISH \(Format.figure(capacity.pushPerSecond[.redis]!))/s; parse acks"
                + " \(Format.figure(capacity.parsePerSecond[.mobiusd]!))/s, :N replies \(Format.figure(capacity.parsePerSecond[.redis]!))/s"
        )

        var ingestOff = Metric("1 ingest, replies off", unit: "events/s", target: .ratioAtLeast(1))
        var ingestOn = Metric("2 ingest, replies on", unit: "events/s", target: .ratioAtLeast(1))
        var oneRate = Metric("3 one at a time, rate", unit: "events/s", target: .ratioAtLeast(1))
        var oneP50 = Metric("3 one at a time, p50", unit: "µs", target: .none)
        var oneP99 = Metric("3 one at a time, p99", unit: "µs", target: .none)
        var fanP50 = Metric("4 fan-out \(options.subscribers) subs, p50", unit: "µs", target: .none)
        var fanP99 = Metric("4 fan-out \(options.subscribers) subs, p99", unit: "µs", target: .ratioAtMost(1))
        var rss = Metric("5 idle RSS", unit: "MB", target: .mobiusdAtMost(12))
        var ready = Metric("5 spawn to accepting", unit: "ms", target: .mobiusdAtMost(50))

        for run in 0..<options.runs {
            let kinds: [ServerKind] = run % 2 == 0 ? [.mobiusd, .redis] : [.redis, .mobiusd]
            var servers: [ServerKind: ServerProcess] = [:]
            defer { for server in servers.values { server.stop() } }
            for kind in kinds { servers[kind] = try start(kind) }
            MonotonicClock.sleep(microseconds: 200_000)
            for kind in kinds {
                let server = servers[kind]!
                let megabytes = Double(try server.residentKilobytes()) / 1024
                let milliseconds = Double(server.readyNanoseconds) / 1e6
                if kind == .mobiusd {
                    rss.mobiusd.append(megabytes)
                    ready.mobiusd.append(milliseconds)
                } else {
                    rss.redis.append(megabytes)
                    ready.redis.append(milliseconds)
                }
            }
            let mobiusd = servers[.mobiusd]!.socketPath
            let redis = servers[.redis]!.socketPath
            // Warm both up (page faults, allocator pools) before measuring.
            _ = try IngestBench.run(kind: .mobiusd, socketPath: mobiusd, events: 50_000, replies: true)
            _ = try IngestBench.run(kind: .redis, socketPath: redis, events: 50_000, replies: true)

            for kind in kinds {
                switch kind {
                case .mobiusd:
                    ingestOff.mobiusd.append(
                        try IngestBench.run(kind: .mobiusd, socketPath: mobiusd, events: options.events, replies: false)
                    )
                    ingestOn.mobiusd.append(
                        try IngestBench.run(kind: .mobiusd, socketPath: mobiusd, events: options.events, replies: true))
                case .redis:
                    let rate = try IngestBench.run(
                        kind: .redis, socketPath: redis, events: options.events, replies: true)
                    ingestOff.redis.append(rate)
                    ingestOn.redis.append(rate)
                }
            }
            for kind in kinds {
                let result = try RoundTripBench.run(
                    kind: kind, socketPath: servers[kind]!.socketPath, count: options.roundTrips)
                append(result.perSecond, for: kind, to: &oneRate)
                append(result.p50Microseconds, for: kind, to: &oneP50)
                append(result.p99Microseconds, for: kind, to: &oneP99)
            }
            for kind in kinds {
                let result = try FanOutBench.run(
                    kind: kind, socketPath: servers[kind]!.socketPath, subscribers: options.subscribers,
                    events: options.fanOutEvents)
                append(result.p50Microseconds, for: kind, to: &fanP50)
                append(result.p99Microseconds, for: kind, to: &fanP99)
            }
            StandardError.write(
                "run \(run + 1)/\(options.runs): ingest off \(Format.figure(ingestOff.mobiusd.last!)) vs"
                    + " \(Format.figure(ingestOff.redis.last!)), on \(Format.figure(ingestOn.mobiusd.last!));"
                    + " one-at-a-time \(Format.figure(oneRate.mobiusd.last!)) vs \(Format.figure(oneRate.redis.last!));"
                    + " fan-out p99 \(Format.figure(fanP99.mobiusd.last!)) vs \(Format.figure(fanP99.redis.last!)) µs;"
                    + " load \(Self.loadAverage())\n")
        }

        let metrics = [ingestOff, ingestOn, oneRate, oneP50, oneP99, fanP50, fanP99, rss, ready]
        let loadAfter = Self.loadAverage()
        let load = "before \(loadBefore); after \(loadAfter)"
        print("")
        Report.printTable(metrics, runs: options.runs)
        let fastest = [ingestOff, ingestOn].flatMap { $0.mobiusd + $0.redis }.max() ?? 0
        let headroom = capacity.floor / fastest
        print(
            "load generator floor \(Format.figure(capacity.floor))/s vs fastest server run \(Format.figure(fastest))/s:"
                + " \(Format.decimal(headroom, 1))× headroom\(headroom > 1 ? "" : " -- THE GENERATOR MAY BE THE BOTTLENECK")"
        )
        print("load average (1/5/15 min): \(load)")
        print("")
        Report.printJSONLines(metrics, runs: options.runs, load: load)
        Report.printJSONLine([
            ("metric", .string("load-generator")), ("unit", .string("messages/s")),
            ("pushMobiusd", Report.number(capacity.pushPerSecond[.mobiusd]!, places: 0)),
            ("pushRedis", Report.number(capacity.pushPerSecond[.redis]!, places: 0)),
            ("parseMobiusd", Report.number(capacity.parsePerSecond[.mobiusd]!, places: 0)),
            ("parseRedis", Report.number(capacity.parsePerSecond[.redis]!, places: 0)),
            ("headroom", Report.number(headroom, places: 2)),
        ])
    }

    /// Profile mode: mobiusd only; writes its pid, gives `perf record -p` a second to attach, then runs `scenario`.
    func profile(_ scenario: String) throws(BenchError) {
        let server = try start(.mobiusd)
        defer { server.stop() }
        if let pidFile = options.pidFile { try Self.writeFile(pidFile, "\(server.pid)\n") }
        StandardError.write("mobiusd pid \(server.pid)\n")
        MonotonicClock.sleep(microseconds: 1_000_000)
        for run in 0..<options.runs {
            let path = server.socketPath
            let figure: String
            switch scenario {
            case "ingest-off", "ingest-on":
                let rate = try IngestBench.run(
                    kind: .mobiusd, socketPath: path, events: options.events, replies: scenario == "ingest-on")
                figure = "\(Format.figure(rate)) events/s"
            case "round-trip":
                let result = try RoundTripBench.run(kind: .mobiusd, socketPath: path, count: options.roundTrips)
                figure = "\(Format.figure(result.perSecond)) events/s, p99 \(Format.figure(result.p99Microseconds)) µs"
            case "fan-out":
                let result = try FanOutBench.run(
                    kind: .mobiusd, socketPath: path, subscribers: options.subscribers, events: options.fanOutEvents)
                figure =
                    "p50 \(Format.figure(result.p50Microseconds)) µs, p99 \(Format.figure(result.p99Microseconds)) µs"
            default:
                throw BenchError("unknown profile scenario \(scenario)\n\(BenchOptions.usage)")
            }
            StandardError.write("\(scenario) run \(run + 1): \(figure)\n")
        }
    }

    private func start(_ kind: ServerKind) throws(BenchError) -> ServerProcess {
        let socketPath = "\(directory)/\(kind.rawValue).sock"
        let logPath = "\(directory)/\(kind.rawValue).log"
        let arguments: [String]
        switch kind {
        case .mobiusd:
            arguments = [options.mobiusd, "--config", configPath, "--socket", socketPath, "--ephemeral"]
        case .redis:
            arguments = [
                options.redisServer, "--port", "0", "--unixsocket", socketPath, "--save", "", "--appendonly", "no",
                "--daemonize", "no",
            ]
        }
        return try ServerProcess.start(kind: kind, arguments: arguments, socketPath: socketPath, logPath: logPath)
    }

    private func append(_ value: Double, for kind: ServerKind, to metric: inout Metric) {
        if kind == .mobiusd { metric.mobiusd.append(value) } else { metric.redis.append(value) }
    }

    /// 1, 5 and 15 minute load averages from /proc/loadavg.
    static func loadAverage() -> String {
        guard let file = fopen("/proc/loadavg", "r") else { return "unknown" }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), file) != nil else { return "unknown" }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func writeFile(_ path: String, _ text: String) throws(BenchError) {
        guard let file = fopen(path, "w") else { throw BenchError.system("open", path) }
        defer { fclose(file) }
        guard fputs(text, file) >= 0 else { throw BenchError.system("write", path) }
    }

    /// Room for 1,000 subscribers plus the servers' own descriptors; the servers inherit it.
    static func raiseDescriptorLimit() throws(BenchError) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw BenchError.system("getrlimit")
        }
        let wanted = min(limit.rlim_max, 65536)
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = wanted
        guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw BenchError.system("setrlimit RLIMIT_NOFILE")
        }
    }
}
