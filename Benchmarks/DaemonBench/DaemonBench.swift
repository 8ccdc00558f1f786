import MobiusJSON
import MobiusSystem
import MobiusTestSupport

/// The whole benchmark: per run, a fresh mobiusd and redis-server, then the selected scenarios against both in
/// `Scenario` order, alternating which server goes first.
struct DaemonBench {
    let options: BenchOptions
    let scratch: TemporaryDirectory
    let configPath: String

    init(options: BenchOptions) throws(BenchError) {
        self.options = options
        let scratch = try BenchError.checking { () throws(SystemError) in
            try TemporaryDirectory(prefix: "mobiusd-bench")
        }
        self.scratch = scratch
        // The default 256 connections per user would refuse the 1,000 subscribers (all ours, one uid).
        let config = #"{"update":{"builtin":"counter"},"socket":{"maxConnections":8192,"maxConnectionsPerUser":8192}}"#
        configPath = try BenchError.checking { () throws(SystemError) in
            try scratch.write(config + "\n", to: "mobiusd.json")
        }
        // Room for 1,000 subscribers plus the servers' own descriptors; the servers inherit it.
        _ = try BenchError.checking { () throws(SystemError) in try ResourceLimits.raiseOpenFilesToHardLimit() }
    }

    func removeTemporaryFiles() {
        scratch.remove()
    }

    func run() throws(BenchError) {
        let selected = options.scenarios
        let loadBefore = Self.loadAverage()
        let names = Scenario.allCases.filter(selected.contains).map(\.rawValue).joined(separator: ",")
        print(
            "mobiusd-bench: mobiusd \(options.mobiusd), \(options.redisServer); \(options.runs) runs;"
                + " scenarios \(names); load \(loadBefore)")
        var capacity: GeneratorCapacity.Result?
        if selected.contains(.ingest) {
            let measured = try GeneratorCapacity.measure(count: options.events)
            print(
                "load generator alone (socketpair, no server): push mobiusd events"
                    + " \(Format.figure(measured.pushPerSecond[.mobiusd]!))/s,"
                    + " redis PUBLISH \(Format.figure(measured.pushPerSecond[.redis]!))/s; parse acks"
                    + " \(Format.figure(measured.parsePerSecond[.mobiusd]!))/s,"
                    + " :N replies \(Format.figure(measured.parsePerSecond[.redis]!))/s")
            capacity = measured
        }

        var ingestOff = Metric("1 ingest, replies off", unit: "events/s", target: .ratioAtLeast(1.5))
        var ingestOn = Metric("2 ingest, replies on", unit: "events/s", target: .ratioAtLeast(1.5))
        var oneRate = Metric("3 one at a time, rate", unit: "events/s", target: .ratioAtLeast(1))
        var oneP50 = Metric("3 one at a time, p50", unit: "µs", target: .none)
        var oneP99 = Metric("3 one at a time, p99", unit: "µs", target: .none)
        var fanP50 = Metric("4 fan-out \(options.subscribers) subs, p50", unit: "µs", target: .none)
        var fanP99 = Metric("4 fan-out \(options.subscribers) subs, p99", unit: "µs", target: .ratioAtMost(1))
        var idle = IdleBench.Metrics(idleSeconds: options.idleSeconds)
        var paced = options.pacings.map { PacedBench.Metrics(periodMicroseconds: $0) }
        var cpuSource: ProcessUsage.CPUSource?
        var durable = DurableBench.Metrics(pacings: options.pacings)

        for run in 0..<options.runs {
            let kinds: [ServerKind] = run % 2 == 0 ? [.mobiusd, .redis] : [.redis, .mobiusd]
            var servers: [ServerKind: ServerProcess] = [:]
            defer { for server in servers.values { server.stop() } }
            for kind in kinds { servers[kind] = try start(kind) }
            try Self.sleep(seconds: 0.2)
            var progress: [String] = []

            if selected.contains(.idle) {
                cpuSource = try IdleBench.measure(kinds.map { servers[$0]! }, seconds: options.idleSeconds, into: &idle)
                progress.append(
                    "idle RSS \(Self.pair(idle.rss)) MB, CPU \(Self.pair(idle.cpu)) µs,"
                        + " wake-ups \(Self.pair(idle.wakeUps))")
            }
            if selected.contains(.paced) {
                for (index, period) in options.pacings.enumerated() {
                    var skipped: [ServerKind: Int] = [:]
                    for kind in kinds {
                        let result = try PacedBench.run(
                            server: servers[kind]!, periodMicroseconds: period, seconds: options.pacedSeconds,
                            warmUpEvents: options.pacedWarmUpEvents)
                        paced[index].record(result, for: kind)
                        skipped[kind] = result.skippedSlots
                        cpuSource = result.cpuSource
                    }
                    // Skipped slots show how well the schedule was kept (late replies, or a client woken late).
                    progress.append(
                        "every \(PacedBench.label(periodMicroseconds: period)): CPU/event"
                            + " \(Self.pair(paced[index].cpuPerEvent)) µs, p99 \(Self.pair(paced[index].p99)) µs,"
                            + " slots skipped \(skipped[.mobiusd]!) vs \(skipped[.redis]!)")
                }
            }
            let mobiusd = servers[.mobiusd]!.socketPath
            let redis = servers[.redis]!.socketPath
            if !selected.isDisjoint(with: [.ingest, .roundTrip, .fanOut]) {
                // Warm both up (page faults, allocator pools) before the throughput and latency scenarios.
                _ = try IngestBench.run(kind: .mobiusd, socketPath: mobiusd, events: 50_000, replies: true)
                _ = try IngestBench.run(kind: .redis, socketPath: redis, events: 50_000, replies: true)
            }
            if selected.contains(.ingest) {
                for kind in kinds {
                    switch kind {
                    case .mobiusd:
                        ingestOff.mobiusd.append(
                            try IngestBench.run(
                                kind: .mobiusd, socketPath: mobiusd, events: options.events, replies: false))
                        ingestOn.mobiusd.append(
                            try IngestBench.run(
                                kind: .mobiusd, socketPath: mobiusd, events: options.events, replies: true))
                    case .redis:
                        let rate = try IngestBench.run(
                            kind: .redis, socketPath: redis, events: options.events, replies: true)
                        ingestOff.redis.append(rate)
                        ingestOn.redis.append(rate)
                    }
                }
                progress.append("ingest off \(Self.pair(ingestOff)), on \(Format.figure(ingestOn.mobiusd.last!))")
            }
            if selected.contains(.roundTrip) {
                for kind in kinds {
                    let result = try RoundTripBench.run(
                        kind: kind, socketPath: servers[kind]!.socketPath, count: options.roundTrips)
                    oneRate.record(result.perSecond, for: kind)
                    oneP50.record(result.p50Microseconds, for: kind)
                    oneP99.record(result.p99Microseconds, for: kind)
                }
                progress.append("one-at-a-time \(Self.pair(oneRate))")
            }
            if selected.contains(.fanOut) {
                for kind in kinds {
                    let result = try FanOutBench.run(
                        kind: kind, socketPath: servers[kind]!.socketPath, subscribers: options.subscribers,
                        events: options.fanOutEvents)
                    fanP50.record(result.p50Microseconds, for: kind)
                    fanP99.record(result.p99Microseconds, for: kind)
                }
                progress.append("fan-out p99 \(Self.pair(fanP99)) µs")
            }
            if selected.contains(.durable) {
                // Servers of their own, with their files in the scratch directory; the others are idle meanwhile.
                progress.append(try DurableBench(options: options, scratch: scratch).measure(run: run, into: &durable))
            }
            StandardError.write(
                "run \(run + 1)/\(options.runs) (mobiusd vs redis): \(progress.joined(separator: "; "));"
                    + " load \(Self.loadAverage())\n")
        }

        var metrics: [Metric] = []
        if selected.contains(.ingest) { metrics += [ingestOff, ingestOn] }
        if selected.contains(.roundTrip) { metrics += [oneRate, oneP50, oneP99] }
        if selected.contains(.fanOut) { metrics += [fanP50, fanP99] }
        if selected.contains(.idle) { metrics += idle.all }
        if selected.contains(.paced) { metrics += paced.flatMap(\.all) }
        if selected.contains(.durable) { metrics += durable.all }
        let load = "before \(loadBefore); after \(Self.loadAverage())"
        print("")
        Report.printTable(metrics, runs: options.runs)
        var headroom: Double?
        if let capacity {
            let fastest = [ingestOff, ingestOn].flatMap { $0.mobiusd + $0.redis }.max() ?? 0
            let ratio = capacity.floor / fastest
            print(
                "load generator floor \(Format.figure(capacity.floor))/s vs fastest server run"
                    + " \(Format.figure(fastest))/s: \(Format.decimal(ratio, 1))× headroom"
                    + (ratio > 1 ? "" : " -- THE GENERATOR MAY BE THE BOTTLENECK"))
            headroom = ratio
        }
        if let cpuSource {
            print(
                "server CPU time: "
                    + (cpuSource == .schedstat
                        ? "/proc/PID/task/*/schedstat (ns, all threads)" : "/proc/PID/stat utime+stime (clock ticks)"))
        }
        print("load average (1/5/15 min): \(load)")
        print("")
        Report.printJSONLines(metrics, runs: options.runs, load: load)
        if let capacity, let headroom {
            Report.printJSONLine([
                ("metric", .string("load-generator")), ("unit", .string("messages/s")),
                ("pushMobiusd", Report.number(capacity.pushPerSecond[.mobiusd]!, places: 0)),
                ("pushRedis", Report.number(capacity.pushPerSecond[.redis]!, places: 0)),
                ("parseMobiusd", Report.number(capacity.parsePerSecond[.mobiusd]!, places: 0)),
                ("parseRedis", Report.number(capacity.parsePerSecond[.redis]!, places: 0)),
                ("headroom", Report.number(headroom, places: 2)),
            ])
        }
    }

    /// Profile mode: one server only (`--profile-server`); writes its pid, gives `perf record -p` a second to attach,
    /// then runs `scenario`.
    func profile(_ scenario: String) throws(BenchError) {
        let kind = options.profileServer
        let server = try start(kind)
        defer { server.stop() }
        if let pidFile = options.pidFile {
            try BenchError.checking { () throws(SystemError) in
                let fd = try FileDescriptor.create(pidFile)
                defer { fd.close() }
                try fd.writeAll(Array("\(server.pid)\n".utf8))
            }
        }
        StandardError.write("\(kind) pid \(server.pid)\n")
        try Self.sleep(seconds: 1)
        for run in 0..<options.runs {
            let path = server.socketPath
            let figure: String
            switch scenario {
            case "ingest-off", "ingest-on":
                let rate = try IngestBench.run(
                    kind: kind, socketPath: path, events: options.events, replies: scenario == "ingest-on")
                figure = "\(Format.figure(rate)) events/s"
            case "round-trip":
                let result = try RoundTripBench.run(kind: kind, socketPath: path, count: options.roundTrips)
                figure = "\(Format.figure(result.perSecond)) events/s, p99 \(Format.figure(result.p99Microseconds)) µs"
            case "fan-out":
                let result = try FanOutBench.run(
                    kind: kind, socketPath: path, subscribers: options.subscribers, events: options.fanOutEvents)
                figure =
                    "p50 \(Format.figure(result.p50Microseconds)) µs, p99 \(Format.figure(result.p99Microseconds)) µs"
            case "paced":
                var figures: [String] = []
                for period in options.pacings {
                    let result = try PacedBench.run(
                        server: server, periodMicroseconds: period, seconds: options.pacedSeconds,
                        warmUpEvents: options.pacedWarmUpEvents)
                    figures.append(
                        "every \(PacedBench.label(periodMicroseconds: period)):"
                            + " CPU \(Format.figure(result.cpuMicrosecondsPerEvent)) µs/event,"
                            + " p50 \(Format.figure(result.p50Microseconds)) µs,"
                            + " p99 \(Format.figure(result.p99Microseconds)) µs")
                }
                figure = figures.joined(separator: "; ")
            default:
                throw BenchError("unknown profile scenario \(scenario)\n\(BenchOptions.usage)")
            }
            StandardError.write("\(scenario) run \(run + 1): \(figure)\n")
        }
    }

    private func start(_ kind: ServerKind) throws(BenchError) -> ServerProcess {
        let socketPath = scratch.file("\(kind.rawValue).sock")
        let logPath = scratch.file("\(kind.rawValue).log")
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

    /// "mobiusd vs redis" for this run's figures of `metric`.
    private static func pair(_ metric: Metric) -> String {
        "\(Format.figure(metric.mobiusd.last ?? .nan)) vs \(Format.figure(metric.redis.last ?? .nan))"
    }

    private static func sleep(seconds: Double) throws(BenchError) {
        try BenchError.checking { () throws(SystemError) in try SystemClock.sleep(nanoseconds: UInt64(seconds * 1e9)) }
    }

    /// 1, 5 and 15 minute load averages from /proc/loadavg.
    static func loadAverage() -> String {
        guard let text = try? FileSystem.read("/proc/loadavg") else { return "unknown" }
        return text.split(separator: 0x20).prefix(3).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
    }
}
