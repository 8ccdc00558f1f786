import Foundation
import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

@testable import mobiusctl

/// `metrics` against the real daemon (docs/protocol.md, "Metrics"): what it counts, and its text checked by the
/// parsers that read it: `promtool check metrics` (the Prometheus format, as node_exporter's textfile collector reads
/// it) and the Python client's strict OpenMetrics parser.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct MetricsTests {
    /// Sends `request` and reads the text through its `# EOF` line.
    static func text(_ client: DaemonLineClient, _ request: String = "metrics") throws -> [String] {
        try client.send(request)
        var lines: [String] = []
        while let line = try client.readLine() {
            lines.append(line)
            if line == "# EOF" { return lines }
        }
        throw DaemonTestError("the connection ended before # EOF; got \(lines)")
    }

    static func scrape(_ client: DaemonLineClient) throws -> MetricsScrape {
        MetricsScrape(lines: try text(client).map { Array($0.utf8)[...] })
    }

    static let pluginConfig = PluginFixtures.config(plugins: ["worker": PluginFixtures.behave()])

    @Test func eventsAreCountedBySourceAndRejectionsByCodeAndSource() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        for _ in 0..<3 { #expect(try client.request(#"{"type":"increment"}"#).isAck) }
        #expect(try client.request("{bad").errorCode == "InvalidJSON")
        #expect(try client.request(#"{"type":"jump"}"#).errorCode == "InvalidEvent")
        let scrape = try Self.scrape(client)
        #expect(scrape.value("mobiusd_events_accepted_total", ["source": "client"]) == 3)
        #expect(scrape.value("mobiusd_events_accepted_total", ["source": "plugin"]) == 0)
        #expect(scrape.value("mobiusd_events_rejected_total", ["code": "InvalidJSON", "source": "client"]) == 1)
        #expect(scrape.value("mobiusd_events_rejected_total", ["code": "InvalidEvent", "source": "client"]) == 1)
        #expect(scrape.value("mobiusd_seq") == 3)
        #expect(scrape.samples("mobiusd_info").first?.labels["app"] == "counter")
        // Five passes before the one `metrics` is in: each was timed, and the three with events were journaled.
        #expect(scrape.value("mobiusd_pass_latency_seconds_count") == 5)
        #expect(scrape.value("mobiusd_commit_latency_seconds_count") == 3)
        #expect((scrape.value("mobiusd_fdatasync_seconds_count") ?? 0) >= 3)
        #expect(scrape.value("mobiusd_journal_segments") == 1)
        #expect((scrape.value("mobiusd_journal_bytes") ?? 0) > 0)
        #expect(scrape.value("mobiusd_connections") == 1)
        #expect((scrape.value("process_resident_memory_bytes") ?? 0) > 1_000_000)
        // The next request on the connection is answered as usual after the text.
        #expect(try client.request("ping").ok == true)
        try daemon.terminate()
    }

    @Test func pluginsAreCountedByOutcomeAndTheirEventsAsPluginEvents() throws {
        let daemon = try DaemonProcess.start(config: Self.pluginConfig)
        let client = try daemon.connect()
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "events"])).isAck)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "error"])).isAck)
        try DaemonTraffic.eventually("the plugin's three events are applied and its error counted") {
            let scrape = try Self.scrape(client)
            return scrape.value("mobiusd_events_accepted_total", ["source": "plugin"]) == 3
                && scrape.value("mobiusd_plugin_effects_total", ["plugin": "worker", "outcome": "PluginError"]) == 1
        }
        let scrape = try Self.scrape(client)
        #expect(scrape.value("mobiusd_plugin_effects_total", ["plugin": "worker", "outcome": "handled"]) == 1)
        #expect(scrape.value("mobiusd_plugin_state", ["plugin": "worker", "state": "running"]) == 1)
        #expect(scrape.value("mobiusd_plugin_state", ["plugin": "worker", "state": "failed"]) == 0)
        #expect(scrape.value("mobiusd_plugin_restarts_total", ["plugin": "worker"]) == 0)
        #expect(scrape.value("mobiusd_plugin_effects_in_flight", ["plugin": "app"]) == 0)
        try daemon.terminate()
    }

    @Test func promtoolAcceptsThePrometheusFormat() throws {
        let promtool = try #require(DaemonSpawn.which("promtool"), "promtool (Debian package prometheus)")
        let daemon = try DaemonProcess.start(config: Self.pluginConfig)
        let client = try daemon.connect()
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "error"])).isAck)
        #expect(try client.request("{bad").errorCode == "InvalidJSON")
        let text = try Self.text(client, #"metrics {"format":"prometheus"}"#)
        #expect(text.contains("# TYPE mobiusd_events_accepted_total counter"), "counters declared by their series")
        let check = try DaemonToolRun.run(
            promtool, ["check", "metrics"], stdin: Array(text.joined(separator: "\n").utf8) + [10])
        #expect(check.exit == .exited(0), "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.isEmpty && check.stderr.isEmpty, "no lint problems: \(check.stdout)\(check.stderr)")
        try daemon.terminate()
    }

    /// The Python client's OpenMetrics parser is strict: `# EOF`, counters as `x` with samples `x_total`, units
    /// matching names, histograms cumulative with `+Inf` equal to `_count`.
    @Test func theOpenMetricsParserAcceptsTheDefault() throws {
        let daemon = try DaemonProcess.start(config: Self.pluginConfig)
        let client = try daemon.connect()
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "events"])).isAck)
        #expect(try client.request(#"{"type":"add","n":1}"#).isAck)
        let text = try Self.text(client)
        #expect(text.contains("# TYPE mobiusd_events_accepted counter"), "counters declared by their family")
        let parse = try DaemonToolRun.run(
            PrivateBus.python,
            [
                "-c",
                """
                import sys
                from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse
                families = list(parse(sys.stdin.read()))
                print(len(families), sorted(f.type for f in families if f.name == "mobiusd_pass_latency_seconds"))
                """,
            ], stdin: Array(text.joined(separator: "\n").utf8) + [10])
        #expect(parse.exit == .exited(0), "\(parse.stdout)\(parse.stderr)")
        #expect(parse.stdout.hasSuffix(" ['histogram']\n"), "\(parse.stdout)\(parse.stderr)")
        try daemon.terminate()
    }

    @Test(arguments: [
        #"metrics {"format":"xml"}"#, "metrics 5", #"metrics {"format":"prometheus","extra":1}"#, "metrics [",
        #"metrics {"format":null}"#,
    ])
    func aBadArgumentIsInvalidArgumentAndTheConnectionGoesOn(line: String) throws {
        let daemon = try DaemonProcess.start(config: #"{"app":"counter","update":{"builtin":"counter"}}"#)
        let client = try daemon.connect()
        let reply = try client.request(line)
        #expect(reply.errorCode == "InvalidArgument", "\(reply)")
        #expect(reply.errorMessage?.hasPrefix("metrics: ") == true, "\(reply)")
        #expect(try Self.text(client).last == "# EOF")
        try daemon.terminate()
    }

    @Test func mobiusctlPrintsTheTextInEitherFormat() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon(arguments: ["--ephemeral"])
        #expect(try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#).exit == .exited(0))
        for (arguments, counterType) in [
            ([], "# TYPE mobiusd_events_accepted counter"),
            (["--format", "prometheus"], "# TYPE mobiusd_events_accepted_total counter"),
            (["--json"], "# TYPE mobiusd_events_accepted counter"),
        ] {
            let run = try sandbox.ctl(["--socket", sandbox.socketPath, "metrics"] + arguments)
            #expect(run.exit == .exited(0), "\(run)")
            #expect(run.lines.last == "# EOF", "\(run)")
            #expect(run.lines.contains(counterType), "\(arguments): \(run)")
            #expect(run.lines.contains(#"mobiusd_events_accepted_total{source="client"} 1"#), "\(run)")
            // Nothing about a journal with --ephemeral.
            #expect(!run.stdout.contains("mobiusd_journal_bytes"), "\(run)")
        }
        let wrong = try sandbox.ctlAtSocket("metrics", "--format", "xml")
        #expect(wrong.exit == .exited(2), "\(wrong)")
        #expect(wrong.stderr.contains("--format takes openmetrics or prometheus"), "\(wrong)")
    }

    /// The timer's service as systemd runs it (`%i` the instance; the socket and the textfile directory moved into
    /// the sandbox): the file appears whole, passes promtool, leaves no temporary file, and a daemon that is gone
    /// leaves the last file as it was.
    @Test func theTimerServiceWritesTheFileForNodeExporter() throws {
        let promtool = try #require(DaemonSpawn.which("promtool"), "promtool (Debian package prometheus)")
        let words = try CtlSandbox.unitCommand("mobiusd-metrics@.service", "ExecStart")
        #expect(words.first == "/usr/local/bin/mobiusctl", "\(words)")
        let sandbox = CtlSandbox()
        let textfiles = sandbox.directory + "/node-exporter"
        try FileSystem.makeDirectories(textfiles)
        let arguments = words.dropFirst().map {
            $0.replacingOccurrences(of: "/run/mobiusd/%i.sock", with: sandbox.socketPath)
                .replacingOccurrences(of: "/var/lib/prometheus/node-exporter", with: textfiles)
                .replacingOccurrences(of: "%i", with: "garage")
        }
        try sandbox.startDaemon(arguments: ["--ephemeral"])
        #expect(try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#).exit == .exited(0))
        let written = try sandbox.ctl(arguments)
        #expect(written.exit == .exited(0) && written.stdout.isEmpty, "\(written)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: textfiles) == ["mobiusd-garage.prom"])
        let file = try String(contentsOfFile: textfiles + "/mobiusd-garage.prom", encoding: .utf8)
        #expect(file.hasSuffix("# EOF\n") && file.contains("mobiusd_seq 1\n"), "\(file)")
        let check = try DaemonToolRun.run(promtool, ["check", "metrics"], stdin: Array(file.utf8))
        #expect(check.exit == .exited(0), "\(check.stdout)\(check.stderr)")
        try sandbox.stopDaemon()
        let failed = try sandbox.ctl(arguments)
        #expect(failed.exit == .exited(3), "\(failed)")
        #expect(try String(contentsOfFile: textfiles + "/mobiusd-garage.prom", encoding: .utf8) == file)
        #expect(try FileManager.default.contentsOfDirectory(atPath: textfiles) == ["mobiusd-garage.prom"])
    }

    @Test func anOutputThatCannotBeWrittenExitsFourAndLeavesNothing() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon(arguments: ["--ephemeral"])
        let missing = sandbox.directory + "/no/such/dir/m.prom"
        let run = try sandbox.ctlAtSocket("metrics", "--output", missing)
        #expect(run.exit == .exited(4), "\(run)")
        #expect(run.stderr.contains("cannot write \(missing): "), "\(run)")
    }
}
