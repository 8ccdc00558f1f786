import MobiusJSON

/// A request mobiusctl sends to the daemon, and how its answer is read.
enum Command: Equatable, Sendable {
    /// `send JSON`: one event.
    case send(JSONValue)
    /// `model [--path PTR] [--at N]`: the current model, or the model right after seq N.
    case model(path: String?, at: UInt64? = nil)
    /// `watch [--path PTR]`: `subscribe`, streamed until the daemon ends it or Ctrl-C.
    case watch(path: String?)
    /// `status`.
    case status
    /// `monitor`: live trace, streamed.
    case monitor
    /// `log [--since N] [--follow] [--limit K] [--models]`.
    case log(since: UInt64?, follow: Bool, limit: UInt64?, models: Bool = false)
    /// `hello`.
    case hello
    /// `ping`.
    case ping
    /// `reload`: the daemon reads its config again; answered once the outcome is known, waited for at most
    /// `timeout` seconds (`--timeout`, default 90).
    case reload(timeout: Int)
    /// `plugin restart NAME`: starts a plugin again, a `failed` one too.
    case restartPlugin(String)
    /// `metrics [--format F] [--output FILE]`: the counters and latencies as text (OpenMetrics, or `prometheus` for
    /// node_exporter), on stdout or written to FILE in one step (a temporary file renamed over it).
    case metrics(format: String?, output: String?)
    /// `top`: a live view, refreshed each second, until `q`, Ctrl-C or the daemon's end.
    case top

    /// The commands the tool knows, in help order (`help` included).
    static let names = [
        "send", "model", "watch", "status", "monitor", "log", "hello", "ping", "reload", "plugin", "metrics", "top",
        "help",
    ]

    /// The command's name on mobiusctl's command line.
    var name: String {
        switch self {
        case .send: return "send"
        case .model: return "model"
        case .watch: return "watch"
        case .status: return "status"
        case .monitor: return "monitor"
        case .log: return "log"
        case .hello: return "hello"
        case .ping: return "ping"
        case .reload: return "reload"
        case .restartPlugin: return "plugin"
        case .metrics: return "metrics"
        case .top: return "top"
        }
    }

    /// The request line (without `\n`) in the control protocol (docs/protocol.md 1.2).
    var requestLine: String {
        switch self {
        case .send(let event): return "send " + Self.compact(event)
        case .model(let path, let at):
            var members: [(String, JSONValue)] = []
            if let path { members.append(("path", .string(path))) }
            if let at { members.append(("at", .number(JSONNumber(at)))) }
            return members.isEmpty ? "model" : "model " + Self.compact(.object(JSONObject(members)))
        case .watch(let path): return Self.withPath("subscribe", path)
        case .status: return "status"
        case .monitor: return "monitor"
        case .hello: return "hello"
        case .ping: return "ping"
        case .reload: return "reload"
        case .restartPlugin(let name): return "plugin " + Self.compact(["restart": .string(name)])
        case .metrics(let format, _):
            return format.map { "metrics " + Self.compact(["format": .string($0)]) } ?? "metrics"
        case .top: return "metrics"
        case .log(let since, let follow, let limit, let models):
            var members: [(String, JSONValue)] = []
            if let since { members.append(("since", .number(JSONNumber(since)))) }
            if follow { members.append(("follow", true)) }
            if let limit { members.append(("limit", .number(JSONNumber(limit)))) }
            if models { members.append(("models", true)) }
            return members.isEmpty ? "log" : "log " + Self.compact(.object(JSONObject(members)))
        }
    }

    /// How long to wait for the reply, in seconds, or `nil` to wait as long as it takes. A reload answers once the
    /// new config is applied (plugins restarted, buses re-matched), which may take seconds; past its timeout
    /// (90 s by default, the longest systemd waits for `ExecReload=` by default) nobody is waiting any more.
    var replyTimeout: Int? {
        switch self {
        case .reload(let timeout): return timeout
        default: return nil
        }
    }

    /// Whether items keep coming after the first reply.
    var streams: Bool {
        switch self {
        case .watch, .monitor, .log: return true
        default: return false
        }
    }

    /// Whether Ctrl-C is the usual way to end it (then it ends quietly with exit status 0).
    var endsByInterrupt: Bool {
        switch self {
        case .watch, .monitor: return true
        case .log(_, let follow, _, _): return follow
        default: return false
        }
    }

    private static func withPath(_ name: String, _ path: String?) -> String {
        guard let path else { return name }
        return name + " " + compact(["path": .string(path)])
    }

    private static func compact(_ value: JSONValue) -> String {
        String(decoding: value.encoded(), as: UTF8.self)
    }
}
