import MobiusJSON
import MobiusSystem

/// Who the running program says it is in the lines people read: its name in `--help`, `--version`, error prefixes,
/// `--check` and the start-up banner, its version, and what `--help` says it does. `mobiusd` has its own; a program
/// built on the kit (`MobiusDaemon.main(app:)`) takes its identity from its `DaemonApp`, so a typed app's binary
/// never calls itself mobiusd or offers the counter's events.
struct ProgramIdentity: Sendable {
    /// The program's name: the prefix of its error lines and the first word of `--version` and the banner.
    let name: String
    /// The app's own version; `nil` for mobiusd itself and for an app that sets none.
    let appVersion: String?
    /// Whether this is the kit's own executable, `mobiusd`, rather than a program built on it.
    let isKit: Bool
    /// What the program does: `--help`'s paragraph under the usage line.
    let summary: String
    /// `--help`'s text for `--config FILE`.
    let configHelp: String
    /// The app whose default socket `--help` names.
    let appName: String
    /// The event `--help` shows in its socat line; `nil` shows the placeholder `EVENT`.
    let exampleEvent: JSONValue?

    /// `mobiusd`, the executable with the built-in apps; its help describes the counter it runs without a config.
    static let mobiusd = ProgramIdentity(
        name: "mobiusd", appVersion: nil, isKit: true,
        summary: """
            Runs a Mobius loop as a service: events arrive as JSON lines on a Unix socket, a pure update
            function turns them into a new model and effects, and subscribers see every model change.
            With no --config it runs the embedded counter app.
            """,
        configHelp: "run the app FILE describes (JSON; see docs/configuration.md)",
        appName: BuiltinApps.defaultName, exampleEvent: ["type": "increment"])

    /// A program built on the kit that runs `app`: named by the app, else by the command line it was started with.
    ///
    /// - Parameter argv0: the program's `argv[0]`.
    init<Model, Event, Effect>(app: DaemonApp<Model, Event, Effect>, argv0: String?) {
        let given = app.programName.flatMap { Self.usableName($0) }
        name = given ?? Self.programName(argv0: argv0, fallback: app.name)
        appVersion = app.version
        isKit = false
        let service = """
            events arrive as JSON lines on a Unix socket, the app's
            update function turns them into a new model and effects, and subscribers see every model change.
            """
        summary =
            app.summary.map { "\($0)\n\nIt runs as a Mobius loop service: \(service)" }
            ?? "Runs the Mobius app \"\(app.name)\" as a service: \(service)"
        configHelp = "read the app's settings from FILE (JSON without \"update\"; see docs/configuration.md)"
        appName = app.name
        exampleEvent = app.exampleEvent
    }

    private init(
        name: String, appVersion: String?, isKit: Bool, summary: String, configHelp: String, appName: String,
        exampleEvent: JSONValue?
    ) {
        self.name = name
        self.appVersion = appVersion
        self.isKit = isKit
        self.summary = summary
        self.configHelp = configHelp
        self.appName = appName
        self.exampleEvent = exampleEvent
    }

    /// `--version`, and the start of the banner: `mobiusd 0.1.0`, or for an app `todo-daemon 1.2.0 (mobiusd kit
    /// 0.1.0)` (without its own version, `todo-daemon (mobiusd kit 0.1.0)`).
    var versionLine: String {
        if isKit { return "mobiusd \(MobiusDaemon.version)" }
        let own = appVersion.map { " \($0)" } ?? ""
        return "\(name)\(own) (mobiusd kit \(MobiusDaemon.version))"
    }

    /// The name the command line gives: the last path component of `argv0` when it is one a terminal can show
    /// (see `usableName`), else the running executable's file name, else `fallback`. A name with control
    /// characters (which a caller of `execve` may choose) never reaches the terminal or the log.
    static func programName(argv0: String?, fallback: String) -> String {
        let fromCommandLine = argv0.flatMap { usableName(lastComponent($0)) }
        let fromExecutable = SystemProcess.executablePath.flatMap { usableName(lastComponent($0)) }
        return fromCommandLine ?? fromExecutable ?? fallback
    }

    /// `name` when it is not empty, at most 255 bytes and free of control characters; else `nil`.
    static func usableName(_ name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 255,
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        else { return nil }
        return name
    }

    private static func lastComponent(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
    }
}
