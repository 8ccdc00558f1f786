import MobiusSystem
import MobiusTestSupport
import Synchronization

/// Scenarios 7 and 8: durability. mobiusd with a state directory and `fsync: "always"` (each ack after the
/// fdatasync of its pass) against redis-server with `appendonly yes` and `appendfsync always` running `INCR` (PUBLISH
/// is never journaled), both on the same disk, fresh each run; and the time a restart takes to recover a journal of
/// `--recovery-events` events.
struct DurableBench {
    let options: BenchOptions
    let scratch: TemporaryDirectory

    /// `INCR c` in RESP; the reply is one `:N` line.
    static let increment = Array("*2\r\n$4\r\nINCR\r\n$1\r\nc\r\n".utf8)
    /// Clients of the concurrent row, each sending one event at a time.
    static let clients = 16

    struct Metrics {
        var oneRate = Metric("7a durable one at a time, rate", unit: "events/s", target: .ratioAtLeast(1))
        var oneP50 = Metric("7b durable one at a time, p50", unit: "µs", target: .none)
        var oneP99 = Metric("7c durable one at a time, p99", unit: "µs", target: .none)
        var bare = Metric("7d ack p50 vs bare write+fdatasync p50", unit: "µs", target: .ratioAtMost(1.2))
        var sixteen = Metric("7e durable 16 clients", unit: "events/s", target: .ratioAtLeast(1))
        var pipelined = Metric("7f durable pipelined, 1 connection", unit: "events/s", target: .ratioAtLeast(1))
        var recovery = Metric("8a recover 1 M journaled events", unit: "s", target: .mobiusdAtMost(2))
        var diskBytes = Metric("8b journal bytes per event (redis: AOF)", unit: "B", target: .none)
        var paced: [PacedBench.Metrics]

        init(pacings: [Int]) {
            paced = pacings.map { PacedBench.Metrics(periodMicroseconds: $0, prefix: "7g durable") }
        }

        var all: [Metric] {
            [oneRate, oneP50, oneP99, bare, sixteen, pipelined] + paced.flatMap(\.all) + [recovery, diskBytes]
        }
    }

    /// One run of both rows; `run` alternates which server goes first.
    func measure(run: Int, into metrics: inout Metrics) throws(BenchError) -> String {
        let kinds: [ServerKind] = run % 2 == 0 ? [.mobiusd, .redis] : [.redis, .mobiusd]
        for kind in kinds {
            let server = try start(kind, name: "durable-\(run)")
            defer { server.stop() }
            let event = kind == .redis ? Self.increment : nil
            // The physical limit, measured on the same disk right before mobiusd's row.
            if kind == .mobiusd { metrics.bare.redis.append(try bareSyncP50()) }
            let one = try RoundTripBench.run(
                kind: kind, socketPath: server.socketPath, count: options.roundTrips / 5, event: event)
            for (index, period) in options.pacings.enumerated() {
                metrics.paced[index].record(
                    try PacedBench.run(
                        server: server, periodMicroseconds: period, seconds: options.pacedSeconds,
                        warmUpEvents: options.pacedWarmUpEvents, event: event), for: kind)
            }
            metrics.oneRate.record(one.perSecond, for: kind)
            metrics.oneP50.record(one.p50Microseconds, for: kind)
            metrics.oneP99.record(one.p99Microseconds, for: kind)
            if kind == .mobiusd { metrics.bare.mobiusd.append(one.p50Microseconds) }
            metrics.sixteen.record(
                try concurrent(kind, socketPath: server.socketPath, perClient: options.roundTrips / 20), for: kind)
            metrics.pipelined.record(
                try IngestBench.run(
                    kind: kind, socketPath: server.socketPath, events: options.durableEvents, replies: true,
                    event: event), for: kind)
        }
        let (seconds, bytesPerEvent, redisBytes) = try recovery(run: run)
        metrics.recovery.mobiusd.append(seconds)
        metrics.recovery.redis.append(.nan)
        metrics.diskBytes.mobiusd.append(bytesPerEvent)
        metrics.diskBytes.redis.append(redisBytes)
        return "durable one-at-a-time \(pair(metrics.oneRate)), 16 clients \(pair(metrics.sixteen)), pipelined "
            + "\(pair(metrics.pipelined)), recovery \(Format.decimal(seconds, 2)) s"
    }

    private func pair(_ metric: Metric) -> String {
        "\(Format.figure(metric.mobiusd.last ?? .nan)) vs \(Format.figure(metric.redis.last ?? .nan))"
    }

    private func start(_ kind: ServerKind, name: String, state: String = "") throws(BenchError) -> ServerProcess {
        let directory = scratch.file("\(name)-\(kind.rawValue)")
        try BenchError.checking { () throws(SystemError) in try FileSystem.makeDirectories(directory, mode: 0o700) }
        let socketPath = directory + "/s.sock"
        let arguments: [String]
        switch kind {
        case .mobiusd:
            let config = try BenchError.checking { () throws(SystemError) in
                try scratch.write(
                    #"{"update":{"builtin":"counter"},"state":{"fsync":"always"\#(state)}}"# + "\n",
                    to: "\(name)-mobiusd.json")
            }
            arguments = [
                options.mobiusd, "--config", config, "--socket", socketPath, "--state-dir", directory + "/state",
            ]
        case .redis:
            arguments = [
                options.redisServer, "--port", "0", "--unixsocket", socketPath, "--save", "", "--appendonly", "yes",
                "--appendfsync", "always", "--dir", directory, "--daemonize", "no",
            ]
        }
        return try ServerProcess.start(
            kind: kind, arguments: arguments, socketPath: socketPath, logPath: directory + "/server.log")
    }

    /// `clients` connections each sending `perClient` events one at a time, side by side; total events/s.
    private func concurrent(_ kind: ServerKind, socketPath: String, perClient: Int) throws(BenchError) -> Double {
        let event = kind == .redis ? Self.increment : kind.event
        let failures = FailureCount()
        let start = SystemProcess.monotonicNanoseconds()
        var threads: [BenchThread] = []
        for index in 0..<Self.clients {
            threads.append(
                try BenchThread(name: "bench-client-\(index)") {
                    do {
                        _ = try RoundTripBench.run(kind: kind, socketPath: socketPath, count: perClient, event: event)
                    } catch {
                        failures.add()
                    }
                })
        }
        for thread in threads { thread.join() }
        let elapsed = SystemProcess.monotonicNanoseconds() - start
        guard failures.count == 0 else { throw BenchError("\(kind): \(failures.count) of 16 clients failed") }
        return Double(perClient * Self.clients) / (Double(elapsed) / 1e9)
    }

    /// The physical limit on this disk: p50 of 1,000 × (append 64 bytes, fdatasync) to a file in the scratch
    /// directory, in µs.
    private func bareSyncP50() throws(BenchError) -> Double {
        try BenchError.checking { () throws(SystemError) in
            let path = scratch.file("bare-sync")
            try FileSystem.remove(path)
            let fd = try FileDescriptor.openFile(path, .readWriteCreating(mode: 0o600))
            defer {
                fd.close()
                try? FileSystem.remove(path)
            }
            let record = [UInt8](repeating: 0x2A, count: 64)
            var latencies: [UInt64] = []
            for index in 0..<1000 {
                let started = SystemProcess.monotonicNanoseconds()
                try fd.writeAll(record, at: Int64(index * 64))
                try fd.synchronizeData()
                latencies.append(SystemProcess.monotonicNanoseconds() - started)
            }
            latencies.sort()
            return Statistics.percentile(sorted: latencies, 0.50) / 1000
        }
    }

    /// Journals `recoveryEvents` events (pipelined, snapshots off so all are replayed), stops the daemon, and
    /// times a restart from spawn to the reply to its first request. Returns seconds, journal bytes per event, and
    /// redis's AOF bytes per INCR from the concurrent row for comparison.
    private func recovery(run: Int) throws(BenchError) -> (Double, Double, Double) {
        let name = "recovery-\(run)"
        let state = #","snapshotEvents":1000000000,"snapshotBytes":1099511627776"#
        var server = try start(.mobiusd, name: name, state: state)
        _ = try IngestBench.run(
            kind: .mobiusd, socketPath: server.socketPath, events: options.recoveryEvents, replies: false)
        server.stop()
        let directory = scratch.file("\(name)-mobiusd/state")
        let bytes = try BenchError.checking { () throws(SystemError) in
            try Self.totalSize(in: directory) { $0.hasSuffix(".journal") }
        }
        let started = SystemProcess.monotonicNanoseconds()
        server = try start(.mobiusd, name: name, state: state)
        defer { server.stop() }
        let stream = try UnixStream.connect(path: server.socketPath)
        defer { stream.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 64)
        defer { buffer.deallocate() }
        try stream.write(all: Array("ping\n".utf8))
        let reply = try stream.readLines(1, into: buffer)
        let seconds = Double(SystemProcess.monotonicNanoseconds() - started) / 1e9
        guard try IngestBench.seq(in: reply) == options.recoveryEvents else {
            throw BenchError(
                "recovery: \(String(decoding: reply, as: UTF8.self)), expected seq \(options.recoveryEvents)")
        }
        let aof = try BenchError.checking { () throws(SystemError) in
            try Self.totalSize(in: scratch.file("durable-\(run)-redis/appendonlydir")) { $0.contains(".incr.") }
        }
        let redisEvents = options.roundTrips / 5 + (options.roundTrips / 20) * Self.clients + options.durableEvents
        return (seconds, Double(bytes) / Double(options.recoveryEvents), Double(aof) / Double(redisEvents))
    }
}

extension DurableBench {
    /// Bytes of the files in `directory` whose names pass `include`.
    static func totalSize(in directory: String, include: (String) -> Bool) throws(SystemError) -> Int64 {
        var total: Int64 = 0
        for name in try DirectoryListing.names(in: directory) where include(name) {
            total += try FileSystem.fileSize(directory + "/" + name) ?? 0
        }
        return total
    }
}

/// Clients of the concurrent row that failed, counted from their threads.
private final class FailureCount: Sendable {
    private let value = Atomic<Int>(0)
    func add() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}
