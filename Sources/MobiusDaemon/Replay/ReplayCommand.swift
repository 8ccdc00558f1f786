import MobiusJSON
import MobiusSystem

/// `mobiusd replay` (and `replay` of every program built on the kit): runs a changed update over the events a state
/// directory's journal holds, side by side with the update the daemon runs, and reports where they part. The state
/// directory is only read (`ReadOnlyJournal`): a daemon running on it goes on undisturbed.
///
/// Exit status: 0 when the two agree on every event of the range, 1 when they differ, 2 on an error.
enum ReplayCommand {
    /// Makes a side for a config: the update it names (a plugin or a built-in), or the program's own app when it
    /// names none.
    typealias SideMaker = (DaemonConfig, DaemonLog) throws(ReplayFailure) -> any ReplayUpdate

    /// Where `mobiusd@NAME` finds its config: the default of `--current` for a state directory named NAME.
    static let usualConfigDirectory = "/etc/mobiusd"

    /// How many events are handed to both sides at once.
    static let chunkEvents = 1024

    /// Runs `replay` with `arguments` (those after the word `replay`) and returns the exit status.
    static func run(_ arguments: [String], identity: ProgramIdentity, side: SideMaker) -> Int32 {
        let program = "\(identity.name) replay"
        let options: ReplayOptions
        do {
            options = try ReplayOptions(arguments: arguments)
        } catch {
            MobiusDaemon.printError("\(program): \(error); see \(program) --help")
            return 2
        }
        if options.showHelp {
            MobiusDaemon.printOut(usage(identity) + "\n")
            return 0
        }
        // Writes to a plugin that has gone, or to a closed stdout, fail instead of ending the process.
        SystemProcess.ignoreBrokenPipe()
        let log = DaemonLog(threshold: options.logLevel, identifier: identity.name)
        defer { log.flush() }
        do {
            return try replay(options, identity: identity, side: side, log: log) ? 0 : 1
        } catch {
            // After the plugins' own lines (the log writes them on a thread of its own): the reason comes last.
            log.flush()
            MobiusDaemon.printError("\(program): \(error)")
            return 2
        }
    }

    /// Compares, printing the report; returns whether the two agree.
    private static func replay(
        _ options: ReplayOptions, identity: ProgramIdentity, side: SideMaker, log: DaemonLog
    ) throws(ReplayFailure) -> Bool {
        let directory = FileSystem.resolve(options.stateDirectory, against: FileSystem.currentDirectory())
        let candidateConfig = try options.candidateConfig.map { file throws(ReplayFailure) in try load(file) }
        let history = try ReadOnlyJournal.open(directory)
        let currentConfig = try current(options, directory: directory, identity: identity)
        let (head, tornTail) = try history.end()
        let since = options.since ?? history.earliestStart ?? 0
        let until = options.until ?? head
        guard since <= head else {
            throw ReplayFailure("--since \(since) is past the last journaled event, seq \(head)")
        }
        guard until <= head else {
            let torn = tornTail.map { " (the journal ends at a torn write: \($0))" } ?? ""
            throw ReplayFailure("--until \(until) is past the last journaled event, seq \(head)\(torn)")
        }
        guard since <= until else {
            throw ReplayFailure(
                "--until \(until) is before seq \(since), the earliest the journal can be replayed from")
        }
        let base = try history.base(for: since)
        let range = since < until ? (since + 1)...until : nil

        let interruption = try ReplayInterruption(program: "\(identity.name) replay")
        let current = try side(currentConfig, log)
        defer { current.close() }
        if let plugin = current as? PluginReplayUpdate { interruption.add(plugin.stop) }
        let candidate = try side(candidateConfig ?? DaemonConfig(), log)
        defer { candidate.close() }
        if let plugin = candidate as? PluginReplayUpdate { interruption.add(plugin.stop) }
        // Both plugins start at once; each is waited for here.
        try current.ready()
        try candidate.ready()
        let start: String
        if let base {
            do {
                try current.reset(to: base.model)
            } catch {
                throw ReplayFailure("the current update cannot take the snapshot at seq \(base.seq): \(error)")
            }
            start = "the snapshot at seq \(base.seq) (the current update's model there)"
        } else {
            try current.initiate()
            start = "the start of the history"
        }
        let progress = ReplayProgressLine(first: (base?.seq ?? 0) + 1, last: until)
        defer { progress?.clear() }
        var reader = ReadOnlyJournal.Reader(history, from: (base?.seq ?? 0) + 1)
        // The events up to `since` only bring the current's model there.
        var before = try chunk(&reader, through: since)
        while !before.isEmpty {
            current.begin(before[...], singly: false)
            _ = try current.finish()
            progress?.reached(before.last!.seq)
            before = try chunk(&reader, through: since)
        }
        do {
            try candidate.reset(to: current.model)
        } catch {
            throw ReplayFailure("the candidate update cannot take the current's model at seq \(since): \(error)")
        }
        let startText = since == (base?.seq ?? 0) ? start : "\(start), then the current update through seq \(since)"
        MobiusDaemon.printOut(
            ReplayReport.header(
                directory: directory, epoch: history.epoch, range: range, start: startText, current: current.label,
                candidate: candidate.label))

        let comparison = ReplayComparison(
            current: current, candidate: candidate, everyDivergence: options.everyDivergence
        ) { divergence in
            progress?.clear()
            MobiusDaemon.printOut(ReplayReport.divergence(divergence))
        }
        var events = try chunk(&reader, through: until)
        while !events.isEmpty {
            comparison.begin(events)
            // Read on while the sides work.
            let next = try chunk(&reader, through: until)
            guard try comparison.finish() else { break }
            progress?.reached(events.last!.seq)
            events = next
        }
        progress?.clear()
        MobiusDaemon.printOut(
            ReplayReport.summary(
                range: range, comparison: comparison, everyDivergence: options.everyDivergence,
                tornTail: until == head ? tornTail.map { (head, $0) } : nil))
        return comparison.divergences.isEmpty
    }

    /// The next events of the journal, up to `chunkEvents` of them and none after `last`.
    ///
    /// - Throws: `ReplayFailure` when the journal ends before `last` or an event is not JSON (naming the file and
    ///   the byte offset).
    private static func chunk(
        _ reader: inout ReadOnlyJournal.Reader, through last: UInt64
    ) throws(ReplayFailure)
        -> [ReplayEvent]
    {
        var events: [ReplayEvent] = []
        while events.count < chunkEvents, reader.nextSeq <= last {
            guard let record = try reader.next() else {
                throw ReplayFailure("the journal ends at seq \(reader.nextSeq - 1), before seq \(last)")
            }
            guard let json = try? JSONValue(parsing: record.text) else {
                throw ReadOnlyJournal.Reader.damage(
                    record.path, record.offset, "record \(record.seq) holds no valid JSON")
            }
            events.append(ReplayEvent(seq: record.seq, time: record.time, text: record.text, json: json))
        }
        return events
    }

    /// The config the daemon runs with: `--current`, else `/etc/mobiusd/NAME.json` for a state directory named
    /// NAME (what `mobiusd@NAME` runs), else no config when NAME is the program's own app (what `mobiusd.service`
    /// runs for the counter, or a typed app without `--config`).
    private static func current(
        _ options: ReplayOptions, directory: String, identity: ProgramIdentity
    ) throws(ReplayFailure) -> DaemonConfig {
        if let file = options.currentConfig { return try load(file) }
        let name = directory.split(separator: "/").last.map(String.init) ?? ""
        let usual = "\(usualConfigDirectory)/\(name).json"
        if FileSystem.exists(usual) { return try load(usual) }
        guard name == identity.appName else {
            throw ReplayFailure(
                "which update does the daemon on \(directory) run? \(usual) does not exist and \"\(name)\" is not "
                    + "the app \(identity.name) runs without a config (\(identity.appName)); name the daemon's "
                    + "config with --current FILE")
        }
        return DaemonConfig()
    }

    private static func load(_ file: String) throws(ReplayFailure) -> DaemonConfig {
        do {
            return try DaemonConfig(file: file)
        } catch {
            throw ReplayFailure("\(error.file == nil ? error.in(file) : error)")
        }
    }

    /// The side that runs `app`'s update with `config` (its `app`, `model` and plugins), checked as start-up checks
    /// it. An update plugin is started; no other plugin is (replay runs no effects).
    static func side<Model, Event, Effect>(
        _ config: DaemonConfig, identity: ProgramIdentity, log: DaemonLog,
        app choose: () throws(ConfigError) -> DaemonApp<Model, Event, Effect>
    ) throws(ReplayFailure) -> any ReplayUpdate {
        let setup: DaemonSetup<Model, Event, Effect>
        do {
            setup = try DaemonSetup(config: config, options: DaemonOptions(), app: choose())
        } catch {
            throw ReplayFailure("\(config.file.map { error.file == nil ? error.in($0) : error } ?? error)")
        }
        let from = config.file.map { " (config \($0))" } ?? " (no config)"
        switch config.update {
        case .plugin(let name)?:
            guard let spec = setup.plugins.first(where: { $0.name == name }) else {
                throw ReplayFailure("update.plugin: no plugin \"\(name)\" in \"plugins\"")
            }
            let command = ([spec.program] + spec.arguments.dropFirst()).joined(separator: " ")
            let model = (try? setup.app.codec.encodeModel(setup.app.initialModel)) ?? .null
            return try PluginReplayUpdate(
                spec: spec, model: model, label: "update plugin \(name): \(command)\(from)", log: log)
        case .builtin(let name)?:
            return try AppReplayUpdate(app: setup.app, label: "built-in \(name)\(from)")
        case nil:
            let own = identity.isKit ? "the embedded app" : "\(identity.name)'s own app"
            return try AppReplayUpdate(app: setup.app, label: "\(own) \"\(setup.app.name)\"\(from)")
        }
    }

    /// `replay --help`.
    static func usage(_ identity: ProgramIdentity) -> String {
        let program = identity.name
        let own = identity.isKit ? "the embedded \(identity.appName)" : "this program's own app"
        return """
            Usage: \(program) replay --state-dir DIR [--config FILE] [--current FILE] [--since N] [--until M] [--all]

            Runs the update that --config describes over the events journaled in DIR, side by side with the update
            the daemon runs (--current), and reports the first event where they part: one applies it and the other
            rejects it, the effects differ, or the models after it differ. DIR is only read: a daemon running on
            it goes on undisturbed.

            Options:
              --state-dir DIR    the state directory whose journal is replayed (required)
              --config FILE      the candidate: the config with the changed update (without one: \(own))
              --current FILE     the config the daemon runs with (default: \(usualConfigDirectory)/NAME.json for a
                                 DIR named NAME, or no config when NAME is \(identity.appName))
              --since N          compare the events after seq N (default: as far back as DIR goes)
              --until M          compare up to seq M (default: the last journaled event)
              --all              list every divergence, not only the first, and count them
              --log-level LEVEL  error, warning (default), notice, info or debug
              --help             print this help and exit

            Exit status: 0 when the two agree on every event, 1 when they differ, 2 on an error.
            """
    }
}
