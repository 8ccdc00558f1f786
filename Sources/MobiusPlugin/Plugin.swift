import MobiusJSON
import MobiusSystem

/// A mobiusd plugin: effect handlers by key, optionally the app's update function, and hooks; `run()` speaks the
/// protocol of docs/protocol.md section 2 on stdin and stdout until the host closes stdin.
///
/// ```swift
/// var plugin = Plugin(name: "greeter", version: "1.0")
/// plugin.handle("greet") { request in
///     [["type": "greeted", "who": request.effect["who"] ?? "world"]]
/// }
/// plugin.run()
/// ```
///
/// Handlers run concurrently, each in its own task; the host's `cancel` cancels that task. Handlers registered with
/// ``handleInline(_:_:)`` run on the thread that reads stdin instead, for quick work. `init` and `update` run
/// one at a time on the thread that reads stdin, in the order the host sends them; `updateBatch` is answered by
/// calling `update` once per event.
public struct Plugin: Sendable {
    /// Runs one effect and returns the events to send in its result (after any it sent with
    /// ``EffectRequest/send(_:)``). Throwing fails the effect with the error's message.
    public typealias EffectHandler = @Sendable (EffectRequest) async throws -> [JSONValue]
    /// Runs one effect at once on the thread that reads stdin (see ``handleInline(_:_:)``) and returns the events
    /// to send in its result. Throwing fails the effect with the error's message.
    public typealias InlineEffectHandler = @Sendable (EffectRequest) throws -> [JSONValue]

    /// How a registered handler runs.
    enum Handler: Sendable {
        /// In a task of its own.
        case task(EffectHandler)
        /// On the reader thread, before the next line is read.
        case inline(InlineEffectHandler)
    }
    /// Mobius `init`: the model the daemon starts from (recovered or configured) to a new model and effects.
    public typealias InitFunction = @Sendable (_ model: JSONValue) throws -> UpdateResult
    /// Mobius `update`: a model and an event to a new model and effects. Throwing rejects the event. Must be pure:
    /// the daemon may call it again with the same input.
    public typealias UpdateFunction = @Sendable (_ model: JSONValue, _ event: JSONValue) throws -> UpdateResult
    /// Checks the host's configuration (usually `options`) before the plugin answers `initialize`; throwing
    /// fails the start with the error's message, which the daemon logs.
    public typealias InitializeHook = @Sendable (PluginConfiguration) throws -> Void
    /// Runs once after the host's `initialized`, as a task, to emit events of the plugin's own.
    public typealias StartHook = @Sendable (EventSink, PluginConfiguration) async throws -> Void
    /// Runs when the host asks the plugin to shut down, before it answers.
    public typealias ShutdownHook = @Sendable () -> Void

    /// The plugin's name, reported in `initialize`.
    public let name: String
    /// The plugin's version, reported in `initialize`.
    public let version: String
    /// The longest line read from or written to the host, not counting the newline (the daemon's default).
    public var maxLineBytes = 16 << 20

    private(set) var handlers: [(key: String, handler: Handler)] = []
    private(set) var initFunction: InitFunction? = nil
    private(set) var updateFunction: UpdateFunction? = nil
    private(set) var initializeHook: InitializeHook? = nil
    private(set) var startHook: StartHook? = nil
    private(set) var shutdownHook: ShutdownHook? = nil

    /// A plugin named `name` with nothing registered yet.
    public init(name: String, version: String = "0") {
        self.name = name
        self.version = version
    }

    /// Registers `handler` for effects whose routing key (``EffectKey``) is `key`.
    ///
    /// Registering a key twice is a programmer error and traps.
    public mutating func handle(_ key: String, _ handler: @escaping EffectHandler) {
        register(key, .task(handler))
    }

    /// Registers `handler` for effects whose routing key is `key`, to run inline: on the thread that reads stdin,
    /// one at a time, before the next line is read, with no task, and with the results of a burst of effects
    /// written back in one `write`. It is the cheapest way to run an effect (see Benchmarks/PluginDaemonBench), for
    /// work that is quick and never waits: while it runs, the plugin reads nothing, so `cancel` cannot reach it.
    /// Anything that sleeps, waits on I/O or takes long belongs in ``handle(_:_:)``.
    ///
    /// Registering a key twice is a programmer error and traps.
    public mutating func handleInline(_ key: String, _ handler: @escaping InlineEffectHandler) {
        register(key, .inline(handler))
    }

    private mutating func register(_ key: String, _ handler: Handler) {
        precondition(
            !handlers.contains { $0.key == key }, "MobiusPlugin: a handler for \"\(key)\" is already registered")
        handlers.append((key, handler))
    }

    /// Makes this plugin the app's update function (`update: true` and `batch: true` in `initialize`).
    /// - Parameters:
    ///   - initialize: Mobius `init`; by default the model stays and there are no effects.
    ///   - update: Mobius `update`.
    public mutating func update(
        init initialize: @escaping InitFunction = { _ in .noChange }, _ update: @escaping UpdateFunction
    ) {
        initFunction = initialize
        updateFunction = update
    }

    /// Sets the hook that checks the configuration before `initialize` is answered.
    public mutating func onInitialize(_ hook: @escaping InitializeHook) {
        initializeHook = hook
    }

    /// Sets the task started after `initialized`, for events of the plugin's own.
    public mutating func onStart(_ hook: @escaping StartHook) {
        startHook = hook
    }

    /// Sets the hook run on `shutdown`.
    public mutating func onShutdown(_ hook: @escaping ShutdownHook) {
        shutdownHook = hook
    }

    /// How many lines the reader handles at most before it writes out the answers waiting.
    static let flushEvery = 32

    /// Speaks the protocol on stdin and stdout until stdin ends, then exits 0.
    ///
    /// Without `MOBIUSD_PLUGIN` in the environment it says that it is a mobiusd plugin and exits 2. Standard
    /// output is kept for the protocol: anything else the process prints to stdout (`print`) goes to stderr, the
    /// plugin's log.
    public func run() -> Never {
        guard let marker = SystemProcess.environment("MOBIUSD_PLUGIN"), !marker.isEmpty else {
            let message =
                "\(name) is a mobiusd plugin: mobiusd starts it and speaks JSON-RPC with it on stdin and stdout "
                + "(docs/protocol.md section 2). Configure it under \"plugins\" in a mobiusd config instead of running it "
                + "by hand. (MOBIUSD_PLUGIN is not set.)\n"
            try? FileDescriptor.standardError.writeAll(Array(message.utf8))
            SystemProcess.exit(2)
        }
        SystemProcess.ignoreBrokenPipe()
        var output = FileDescriptor.standardOutput
        if let protocolOutput = try? FileDescriptor.standardOutput.duplicate() {
            // Stray prints must not corrupt the protocol: fd 1 becomes a copy of stderr.
            if (try? FileDescriptor.standardError.duplicate(onto: .standardOutput)) != nil {
                output = protocolOutput
            } else {
                protocolOutput.close()
            }
        }
        let writer = MessageWriter(output: output, maxLineBytes: maxLineBytes)
        let session = PluginSession(plugin: self, writer: writer)
        var reader = LineReader(input: .standardInput, maxLineBytes: maxLineBytes)
        var linesSinceFlush = 0
        while true {
            switch reader.next() {
            case .line(let line):
                session.receive(line)
                // Answers wait until every line already read is handled, so a burst is answered in few writes; every
                // `flushEvery` lines they go out anyway, so the host works on the first answers while the plugin
                // handles the rest of the burst.
                linesSinceFlush += 1
                if linesSinceFlush >= Self.flushEvery || !reader.hasBufferedLine {
                    writer.flushPending()
                    linesSinceFlush = 0
                }
            case .tooLong(let count):
                session.receiveTooLong(count)
                if !reader.hasBufferedLine { writer.flushPending() }
            case .end:
                session.endOfInput()
                writer.flushPending()
                writer.flush()
                SystemProcess.exit(0)
            }
        }
    }
}
