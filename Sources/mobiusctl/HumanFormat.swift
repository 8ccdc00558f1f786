import MobiusJSON

/// Turns the daemon's replies and stream items into text for people.
enum HumanFormat {
    /// The first reply (`"ok":true`) to `command`.
    static func reply(_ reply: JSONValue, for command: Command) -> Rendering {
        let seq = reply["seq"].map(PrettyJSON.compact) ?? "?"
        switch command {
        case .send, .ping:
            return Rendering(output: ["ok, seq \(seq)"])
        case .model:
            return Rendering(output: ["seq \(seq)", PrettyJSON.text(reply["model"] ?? .null)])
        case .watch:
            return Rendering(output: ["seq \(seq): " + PrettyJSON.compact(reply["model"] ?? .null)])
        case .status, .hello:
            var members = reply.objectValue ?? JSONObject()
            members.removeValue(forKey: "ok")
            return Rendering(output: listing(members))
        case .monitor:
            return Rendering(notes: ["monitoring from seq \(seq); Ctrl-C to stop"])
        case .log:
            var notes = ["log from seq \(reply["from"].map(PrettyJSON.compact) ?? "?") (head \(seq))"]
            if reply["compacted"]?.boolValue == true {
                notes.append("events before that are no longer kept (compacted)")
            }
            return Rendering(notes: notes)
        case .reload:
            let reloaded = names(reply["reloaded"])
            var output = ["reloaded: " + (reloaded.isEmpty ? "nothing" : reloaded.joined(separator: ", "))]
            let needRestart = names(reply["needRestart"])
            if !needRestart.isEmpty {
                output.append("needs a restart to take effect: " + needRestart.joined(separator: ", "))
            }
            return Rendering(output: output)
        case .restartPlugin(let name):
            return Rendering(output: ["plugin \(name): " + (reply["state"]?.stringValue ?? "?")])
        case .metrics, .top:
            return Rendering()  // their replies are text, read by `ControlClient.metricsText` and `TopSession`
        }
    }

    /// The strings of a JSON array (`reloaded`, `needRestart`), other values as JSON.
    private static func names(_ value: JSONValue?) -> [String] {
        (value?.arrayValue ?? []).map { $0.stringValue ?? PrettyJSON.compact($0) }
    }

    /// A stream item (a line without `"ok"`) of `command`.
    static func item(_ item: JSONValue, for command: Command) -> Rendering {
        let seq = item["seq"].map(PrettyJSON.compact)
        switch command {
        case .watch where seq != nil:
            return Rendering(output: ["seq \(seq!): " + PrettyJSON.compact(item["model"] ?? .null)])
        case .monitor where item["trace"]?.stringValue != nil:
            return Rendering(output: [traceLine(item)])
        case .log where item["end"]?.boolValue == true:
            return Rendering(notes: ["end of log at seq \(seq ?? "?")"])
        case .log where seq != nil:
            let time = item["time"]?.stringValue ?? "-"
            let model = item["model"].map { "  model " + PrettyJSON.compact($0) } ?? ""
            return Rendering(output: ["seq \(seq!)  \(time)  " + PrettyJSON.compact(item["event"] ?? .null) + model])
        default:
            return Rendering(output: [PrettyJSON.compact(item)])
        }
    }

    /// An error reply: `the app rejected the event: … (InvalidEvent)`.
    static func error(_ reply: JSONValue) -> String {
        let message = reply["error"]?["message"]?.stringValue ?? PrettyJSON.compact(reply)
        let code = reply["error"]?["code"]?.stringValue ?? "no code"
        return "\(message) (\(code))"
    }

    /// `event   seq 3  {"type":"increment"}`: the trace kind, its seq, then the rest of the item.
    static func traceLine(_ item: JSONValue) -> String {
        var rest = item.objectValue ?? JSONObject()
        let kind = rest.removeValue(forKey: "trace")?.stringValue ?? "?"
        var line = kind.padding(to: 7)
        if let seq = rest.removeValue(forKey: "seq") { line += "seq \(PrettyJSON.compact(seq))  " }
        if rest.count == 1, let only = rest.members.first {
            line += PrettyJSON.compact(only.value)
        } else if !rest.isEmpty {
            line += PrettyJSON.compact(.object(rest))
        }
        return line.trimmingTrailingSpaces()
    }

    /// `key  value` rows, nested objects flattened to `events.accepted`, keys aligned.
    static func listing(_ object: JSONObject) -> [String] {
        var rows: [(key: String, value: String)] = []
        flatten(object, prefix: "", into: &rows)
        let width = rows.map(\.key.count).max() ?? 0
        return rows.map { ($0.key.padding(to: width + 2) + $0.value).trimmingTrailingSpaces() }
    }

    private static func flatten(_ object: JSONObject, prefix: String, into rows: inout [(key: String, value: String)]) {
        for (key, value) in object.members {
            let name = prefix + key
            if case .object(let nested) = value, !nested.isEmpty {
                flatten(nested, prefix: name + ".", into: &rows)
            } else {
                rows.append((name, scalarText(value, key: key)))
            }
        }
    }

    private static func scalarText(_ value: JSONValue, key: String) -> String {
        switch value {
        case .string(let text): return text
        case .object: return "none"
        case .number(let number) where key == "uptime": return duration(number.doubleValue)
        case .number(let number) where key.hasSuffix("Bytes"):
            let mebibytes = (number.doubleValue / 1_048_576 * 10).rounded() / 10
            return "\(number.literal) (\(mebibytes) MiB)"
        default: return PrettyJSON.compact(value)
        }
    }

    /// `4.2s`, `3m 7s`, `2h 0m 5s`, `1d 3h 0m`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "\(seconds)s" }
        if seconds < 60 { return "\((seconds * 10).rounded(.down) / 10)s" }
        let whole = Int(seconds)
        let (days, hours, minutes, rest) = (whole / 86400, whole / 3600 % 24, whole / 60 % 60, whole % 60)
        if days > 0 { return "\(days)d \(hours)h \(minutes)m" }
        if hours > 0 { return "\(hours)h \(minutes)m \(rest)s" }
        return "\(minutes)m \(rest)s"
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    fileprivate func trimmingTrailingSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}
