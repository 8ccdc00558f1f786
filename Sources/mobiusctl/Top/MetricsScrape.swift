/// The samples of one `metrics` reply (the OpenMetrics text), by series name, for `top`.
struct MetricsScrape: Equatable {
    /// One sample: its labels and value.
    struct Sample: Equatable {
        var labels: [String: String]
        var value: Double
    }

    private(set) var series: [String: [Sample]] = [:]

    /// Parses the text's sample lines; comments and lines that are not samples are skipped.
    init(lines: [ArraySlice<UInt8>]) {
        for line in lines {
            guard let first = line.first, first != UInt8(ascii: "#"), let sample = Self.sample(line) else { continue }
            series[sample.name, default: []].append(sample.sample)
        }
    }

    /// The value of the sample of `name` with these labels (others may be present), or `nil`.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        series[name]?.first { sample in labels.allSatisfy { sample.labels[$0.key] == $0.value } }?.value
    }

    /// The sum of every sample of `name`.
    func sum(_ name: String) -> Double {
        (series[name] ?? []).reduce(0) { $0 + $1.value }
    }

    /// The samples of `name`.
    func samples(_ name: String) -> [Sample] {
        series[name] ?? []
    }

    /// The histogram `name` as (upper bound, cumulative count) pairs in order, `+Inf` last.
    func buckets(_ name: String) -> [(bound: Double, count: Double)] {
        samples(name + "_bucket").compactMap { sample in
            guard let le = sample.labels["le"] else { return nil }
            let bound = le == "+Inf" ? Double.infinity : Double(le)
            return bound.map { ($0, sample.value) }
        }.sorted { $0.bound < $1.bound }
    }

    /// `name{labels} value`, or `nil` for a line that is not one.
    private static func sample(_ line: ArraySlice<UInt8>) -> (name: String, sample: Sample)? {
        var index = line.startIndex
        while index < line.endIndex, line[index] != UInt8(ascii: "{"), line[index] != UInt8(ascii: " ") {
            index += 1
        }
        let name = String(decoding: line[line.startIndex..<index], as: UTF8.self)
        var labels: [String: String] = [:]
        if index < line.endIndex, line[index] == UInt8(ascii: "{") {
            guard let parsed = Self.labels(line, from: &index) else { return nil }
            labels = parsed
        }
        let rest = String(decoding: line[index...], as: UTF8.self).split(separator: " ")
        guard !name.isEmpty, let text = rest.first, let value = Double(text) else { return nil }
        return (name, Sample(labels: labels, value: value))
    }

    /// Parses `{a="b",c="d"}` starting at `index` (on the `{`), leaving `index` after the `}`.
    private static func labels(_ line: ArraySlice<UInt8>, from index: inout Int) -> [String: String]? {
        var labels: [String: String] = [:]
        index += 1
        while index < line.endIndex, line[index] != UInt8(ascii: "}") {
            let nameStart = index
            while index < line.endIndex, line[index] != UInt8(ascii: "=") { index += 1 }
            let name = String(decoding: line[nameStart..<index], as: UTF8.self)
            index += 1
            guard index < line.endIndex, line[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            var value: [UInt8] = []
            while index < line.endIndex, line[index] != UInt8(ascii: "\"") {
                if line[index] == UInt8(ascii: "\\"), index + 1 < line.endIndex {
                    index += 1
                    value.append(line[index] == UInt8(ascii: "n") ? UInt8(ascii: "\n") : line[index])
                } else {
                    value.append(line[index])
                }
                index += 1
            }
            guard index < line.endIndex else { return nil }
            index += 1
            labels[name] = String(decoding: value, as: UTF8.self)
            if index < line.endIndex, line[index] == UInt8(ascii: ",") { index += 1 }
        }
        guard index < line.endIndex else { return nil }
        index += 1
        return labels
    }
}
