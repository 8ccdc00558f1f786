/// How `top` shows `TopFigures`: a screen of lines on a terminal, one line per refresh otherwise.
enum TopScreen {
    /// The screen, at most `rows` lines of at most `columns` characters.
    static func lines(_ figures: TopFigures, socket: String, rows: Int, columns: Int) -> [String] {
        var lines = [
            "mobiusd \(figures.app) (\(figures.version))  seq \(whole(figures.seq))  up "
                + HumanFormat.duration(figures.uptime) + "  " + socket,
            "",
            "events/s  \(figures.eventsPerSecond.map { fixed($0, 1) } ?? "–")   accepted \(whole(figures.accepted))"
                + "   rejected \(whole(figures.rejected))",
            "ack       p50 \(latency(figures.ackP50))   p99 \(latency(figures.ackP99))",
            "queue     \(whole(figures.queueDepth)) of \(whole(figures.queueCapacity))",
            "clients   \(whole(figures.subscribers)) subscribers   \(whole(figures.connections)) connections",
            "journal   \(journal(figures))   snapshot \(snapshot(figures))",
            "memory    \(bytes(figures.residentBytes)) resident",
            "",
        ]
        if figures.plugins.isEmpty {
            lines.append("no plugins")
        } else {
            lines.append(row(["PLUGIN", "STATE", "IN FLIGHT", "HANDLED", "FAILED", "RESTARTS"]))
            for plugin in figures.plugins {
                lines.append(
                    row([
                        plugin.name, plugin.state, whole(plugin.inFlight), whole(plugin.handled), whole(plugin.failed),
                        whole(plugin.restarts),
                    ]))
            }
        }
        lines.append("")
        lines.append("q quits")
        if lines.count > rows, rows > 0 {
            let hidden = lines.count - rows + 1
            lines = Array(lines.prefix(rows - 1)) + ["… \(hidden) more lines (a taller terminal shows them)"]
        }
        return lines.map { String($0.prefix(max(columns, 1))) }
    }

    /// One line for a refresh when stdout is not a terminal.
    static func line(_ figures: TopFigures) -> String {
        var parts = [
            "\(figures.app) seq \(whole(figures.seq))",
            "events/s \(figures.eventsPerSecond.map { fixed($0, 1) } ?? "–")",
            "ack p50 \(latency(figures.ackP50)) p99 \(latency(figures.ackP99))",
            "queue \(whole(figures.queueDepth))",
            "subscribers \(whole(figures.subscribers))",
            "journal \(journal(figures))",
            "snapshot \(snapshot(figures))",
        ]
        if !figures.plugins.isEmpty {
            parts.append("plugins " + figures.plugins.map { "\($0.name) \($0.state)" }.joined(separator: ", "))
        }
        return parts.joined(separator: "  ")
    }

    private static func row(_ cells: [String]) -> String {
        let name = cells[0].padding(to: 16) + " " + cells[1].padding(to: 9)
        let numbers = cells.dropFirst(2).map { String(repeating: " ", count: max(0, 11 - $0.count)) + $0 }
        return name + numbers.joined()
    }

    private static func journal(_ figures: TopFigures) -> String {
        guard let size = figures.journalBytes else { return "none (ephemeral)" }
        let segments = whole(figures.journalSegments ?? 0)
        return "\(bytes(size)) in \(segments) segment\(figures.journalSegments == 1 ? "" : "s")"
    }

    private static func snapshot(_ figures: TopFigures) -> String {
        figures.snapshotAge.map { HumanFormat.duration($0) + " ago" } ?? "none"
    }

    /// `42 µs`, `1.25 ms`, `2.50 s`, `> 10 s` past the last bucket, `–` without passes.
    static func latency(_ seconds: Double?) -> String {
        guard let seconds else { return "–" }
        guard seconds.isFinite else { return "> 10 s" }
        if seconds < 0.001 { return "\(whole(seconds * 1e6)) µs" }
        if seconds < 1 { return "\(fixed(seconds * 1e3, 2)) ms" }
        return "\(fixed(seconds, 2)) s"
    }

    /// `512 B`, `4.0 KiB`, `10.6 MiB`, `1.2 GiB`.
    static func bytes(_ count: Double) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = count
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(whole(value)) B" : "\(fixed(value, 1)) \(units[unit])"
    }

    /// `value` rounded to a whole number.
    static func whole(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e18 else { return "\(value)" }
        return String(Int64(value.rounded()))
    }

    /// `value` with `places` decimals (no Foundation here for `String(format:)`).
    static func fixed(_ value: Double, _ places: Int) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = Int64((abs(value) * Double(scale)).rounded())
        let fraction = String(scaled % scale)
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard places > 0 else { return sign + String(scaled) }
        return sign + String(scaled / scale) + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
