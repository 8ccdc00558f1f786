/// Writes metric families in one of the `MetricsFormat`s: metadata lines, then samples, then `# EOF`.
struct MetricsText {
    /// Label names and values of one sample, in order.
    typealias Labels = [(String, String)]

    let format: MetricsFormat
    private(set) var bytes: [UInt8] = []

    init(format: MetricsFormat) {
        self.format = format
        bytes.reserveCapacity(16 * 1024)
    }

    /// A gauge family; nothing when `samples` is empty.
    mutating func gauge(_ name: String, unit: String? = nil, help: String, _ samples: [(Labels, String)]) {
        guard !samples.isEmpty else { return }
        metadata(name, type: "gauge", unit: unit, help: help)
        for (labels, value) in samples { sample(name, labels, value) }
    }

    /// A gauge family with one unlabelled sample.
    mutating func gauge(_ name: String, unit: String? = nil, help: String, _ value: some BinaryInteger) {
        gauge(name, unit: unit, help: help, [([], String(value))])
    }

    /// A counter family named `name` (without `_total`); nothing when `samples` is empty.
    mutating func counter(_ name: String, help: String, _ samples: [(Labels, UInt64)]) {
        guard !samples.isEmpty else { return }
        let series = name + "_total"
        metadata(format == .openMetrics ? name : series, type: "counter", unit: nil, help: help)
        for (labels, value) in samples { sample(series, labels, String(value)) }
    }

    /// A histogram of durations in seconds: `name` ends in `_seconds`.
    mutating func histogram(_ name: String, help: String, _ histogram: HistogramSample) {
        metadata(name, type: "histogram", unit: "seconds", help: help)
        var cumulative: UInt64 = 0
        for (index, count) in histogram.counts.enumerated() {
            cumulative &+= count
            let bound =
                index < LatencyHistogram.bounds.count
                ? Self.number(Double(LatencyHistogram.bounds[index]) / 1e9) : "+Inf"
            sample(name + "_bucket", [("le", bound)], String(cumulative))
        }
        sample(name + "_sum", [], Self.number(Double(histogram.sumNanoseconds) / 1e9))
        sample(name + "_count", [], String(cumulative))
    }

    /// The text, ended by `# EOF`.
    mutating func finish() -> [UInt8] {
        bytes.append(contentsOf: "# EOF\n".utf8)
        return bytes
    }

    /// A number as both formats write it (Swift's shortest form that reads back exactly, e.g. `2.5e-05`).
    static func number(_ value: Double) -> String {
        value.description
    }

    private mutating func metadata(_ name: String, type: String, unit: String?, help: String) {
        if format == .prometheus {
            line("# HELP \(name) \(help)")
            line("# TYPE \(name) \(type)")
            return
        }
        line("# TYPE \(name) \(type)")
        if let unit { line("# UNIT \(name) \(unit)") }
        line("# HELP \(name) \(help)")
    }

    private mutating func sample(_ name: String, _ labels: Labels, _ value: String) {
        bytes.append(contentsOf: name.utf8)
        if !labels.isEmpty {
            bytes.append(UInt8(ascii: "{"))
            for (index, (label, text)) in labels.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(contentsOf: label.utf8)
                bytes.append(contentsOf: "=\"".utf8)
                Self.appendEscaped(text, to: &bytes)
                bytes.append(UInt8(ascii: "\""))
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: value.utf8)
        bytes.append(UInt8(ascii: "\n"))
    }

    private mutating func line(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// A label value with `\`, `"` and newlines escaped, as both formats require.
    private static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): bytes.append(contentsOf: "\\\\".utf8)
            case UInt8(ascii: "\""): bytes.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: "\\n".utf8)
            default: bytes.append(byte)
            }
        }
    }
}
