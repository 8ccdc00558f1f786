public import MobiusCore
public import MobiusJSON

/// A Mobius app the daemon runs: a pure update and initiate over the app's own types, how those types cross the
/// socket as JSON, and optional Swift effect handlers.
///
/// The JSON app (`DaemonApp.json`) uses `JSONValue` for model, events and effects; a typed Swift app
/// (`init(name:model:update:initiate:effects:)`) uses `Codable` types. Both run as the same daemon: same socket
/// protocol, configuration and (as they land) plugins, journal and systemd integration.
public struct DaemonApp<Model, Event, Effect>: @unchecked Sendable {
    // @unchecked: the closures are pure functions and codecs that keep no state, so any thread may call them: the
    // reactor thread calls update, initiate, the event decoder and the encoders, and the reload thread calls
    // `decodeModel` while it builds a new setup. The value is built once and only copied after.

    /// The app's name: socket and state paths, `hello` and `status` use it.
    public private(set) var name: String
    /// The model a fresh daemon starts from.
    public private(set) var initialModel: Model
    /// An event in its JSON form, for the socat line of `--help` and of the start-up banner (ready to paste);
    /// `nil` (the default) shows the placeholder `EVENT`.
    public var exampleEvent: JSONValue?
    /// The program's name in `--help`, `--version`, error messages, `--check` and the start-up banner; `nil` (the
    /// default) takes the file name the program was started as (the last component of `argv[0]`). A name that is
    /// empty, longer than 255 bytes or has control characters is not used.
    public var programName: String?
    /// What the program does, a sentence or two that `--help` prints under the usage line (before a paragraph
    /// on the socket protocol that every app shares); `nil` (the default) says it runs the app `name`.
    public var summary: String?
    /// The app's version: `--version` and the start-up banner show it with the daemon kit's, as in
    /// `todo-daemon 1.2.0 (mobiusd kit 0.1.0)`; `nil` (the default) shows the kit's alone.
    public var version: String?
    /// The update: a `Next`, or a thrown error that rejects the event (`InvalidEvent` to its sender, model
    /// unchanged, no seq). An `EventRejection` gives the message; any other error's description does.
    let update: (Model, Event) throws -> Next<Model, Effect>
    let initiate: Initiate<Model, Effect>?
    let effects: EffectRouter<Effect, Event>?
    let codec: DaemonCodec<Model, Event, Effect>
    /// How the daemon keeps the model within JSON's nesting limit.
    var modelDepth: ModelDepthCheck
    /// The plugin that is the app's update (`{"update":{"plugin":NAME}}`); `nil` when `update` is Swift.
    var updatePlugin: String?
    /// Plugins the app uses when they are installed (next to the daemon's executable or on PATH), by plugin name:
    /// run only for the embedded default app, which has no config file to name them.
    var bundledPlugins: [(name: String, program: String)] = []
    /// What an effect becomes when no handler claims its key: a built-in effect (e.g. a log line standing in for
    /// a bundled plugin that is not installed), by routing key.
    var effectFallbacks: [String: @Sendable (JSONValue) -> JSONValue] = [:]

    init(
        name: String,
        initialModel: Model,
        update: @escaping (Model, Event) throws -> Next<Model, Effect>,
        initiate: Initiate<Model, Effect>?,
        effects: EffectRouter<Effect, Event>?,
        codec: DaemonCodec<Model, Event, Effect>,
        modelDepth: ModelDepthCheck
    ) {
        self.name = name
        self.initialModel = initialModel
        self.update = update
        self.initiate = initiate
        self.effects = effects
        self.codec = codec
        self.modelDepth = modelDepth
    }

    /// The same app under another name or starting model (the config file's `app` and `model` keys).
    func with(name: String? = nil, initialModel: Model? = nil) -> DaemonApp {
        var copy = self
        if let name { copy.name = name }
        if let initialModel { copy.initialModel = initialModel }
        return copy
    }
}

extension DaemonApp where Model == JSONValue, Event == JSONValue, Effect == JSONValue {
    /// A JSON app: model, events and effects are JSON values.
    ///
    /// - Parameters:
    ///   - name: the app's name.
    ///   - model: the starting model.
    ///   - update: the pure update function. Throwing rejects the event: its sender gets `InvalidEvent` with the
    ///     error's message (an `EventRejection`'s `message`, else the error's description), the model is unchanged
    ///     and the event gets no seq.
    ///   - initiate: run on start-up on the (recovered) model; its effects run.
    ///   - effects: Swift handlers for some effects; other effects go to built-ins and plugins by routing key.
    ///   - validate: checks an event before it is queued; throwing rejects it with `InvalidEvent`, the error's
    ///     description as the message.
    ///   - validateModel: checks a starting model from the config file (`model`); throwing fails start-up and
    ///     `--check`, naming the key.
    public static func json(
        name: String,
        model: JSONValue,
        update: @escaping (JSONValue, JSONValue) throws -> Next<JSONValue, JSONValue>,
        initiate: Initiate<JSONValue, JSONValue>? = nil,
        effects: EffectRouter<JSONValue, JSONValue>? = nil,
        validate: (@Sendable (JSONValue) throws -> Void)? = nil,
        validateModel: (@Sendable (JSONValue) throws -> Void)? = nil
    ) -> DaemonApp {
        DaemonApp(
            name: name, initialModel: model, update: update, initiate: initiate, effects: effects,
            codec: DaemonCodec(
                decodeEvent: { (event: consuming JSONValue) in
                    // Taken over, not copied: a JSON app's event is the JSON itself.
                    try validate?(event)
                    return event
                },
                encodeEvent: { $0 }, encodeModel: { $0 },
                decodeModel: { model in
                    try validateModel?(model)
                    return model
                },
                encodeEffect: { $0 }),
            modelDepth: .eachEvent)
    }
}

extension DaemonApp where Model: Codable, Event: Codable, Effect: Codable {
    /// A typed Swift app over `Codable` types. Events arrive as JSON and are decoded with the types' `Codable`
    /// conformances; an enum whose `Codable` Swift synthesized takes and gives the `type`-tagged shape by default
    /// (`case unlock(code: String)` is `{"type":"unlock","code":"1234"}`, the shape of JSON apps, plugins and D-Bus
    /// sources), or Swift's own `{"unlock":{"code":"1234"}}` with `enumShape: .swiftKeyed`. A line that does not
    /// decode gets `InvalidEvent`. Effects the `effects` router has no route for go to built-ins and plugins by
    /// routing key.
    ///
    /// `update` may throw to reject an event: its sender gets `InvalidEvent` with the error's message (an
    /// `EventRejection`'s `message`, else the error's description), the model is unchanged and the event gets no
    /// seq. A model whose JSON form would nest deeper than 512 levels also rejects the event that made it so (each
    /// changed model is encoded to check, so a typed app pays one encoding per event that changes the model).
    ///
    /// - Parameter enumShape: how enums in events, effects and the model cross the socket and the journal.
    public init(
        name: String,
        model: Model,
        update: @escaping (Model, Event) throws -> Next<Model, Effect>,
        initiate: Initiate<Model, Effect>? = nil,
        effects: EffectRouter<Effect, Event>? = nil,
        enumShape: JSONEnumShape = .typeTagged
    ) {
        let encoder = JSONValueEncoder(enumShape: enumShape)
        let decoder = JSONValueDecoder(enumShape: enumShape)
        self.init(
            name: name, initialModel: model, update: update, initiate: initiate, effects: effects,
            codec: DaemonCodec(
                decodeEvent: { try decoder.decode(Event.self, from: $0) },
                encodeEvent: { (try? encoder.encode($0)) ?? .null },
                encodeModel: { try encoder.encode($0) },
                decodeModel: { try decoder.decode(Model.self, from: $0) },
                encodeEffect: { try encoder.encode($0) }),
            modelDepth: .eachEvent)
    }
}
