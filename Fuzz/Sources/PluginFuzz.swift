import MobiusJSON
import MobiusSystem

@testable import MobiusDaemon

/// What a plugin writes on its stdout (docs/protocol.md 2.2-2.5), read as the plugin host reads it: framed into lines
/// (as the pipe delivers them, in chunks), each line classified as a JSON-RPC message, and results decoded as an update
/// plugin's `update` and `updateBatch` answers; and the update requests the host builds around the values found.
///
/// Oracles: nothing traps; the lines do not depend on how the bytes were chunked; the fast path for compact results
/// gives exactly what the general way gives, byte for byte; the update decoders take a result exactly when it has the
/// shape of section 2.5 and give one outcome per event, the batch's model only with an applied event; a request's
/// params hold exactly the events that fit its limit, and parse back to the model and those events.
enum PluginFuzz {
    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let maxLineBytes = [64, 1024, 1 << 16, .max][input.int(0...3)]
        let chunk = input.int(1...64)
        let stream = input.rest()
        var whole = LineFramer(maxLineBytes: maxLineBytes, keepsCarriageReturn: true)
        whole.append(stream[...])
        var frames: [LineFramer.Frame] = []
        while let frame = whole.next() { frames.append(frame) }
        var chunked = LineFramer(maxLineBytes: maxLineBytes, keepsCarriageReturn: true)
        var again: [LineFramer.Frame] = []
        for start in stride(from: 0, to: stream.count, by: chunk) {
            chunked.append(stream[start..<min(start + chunk, stream.count)])
            while let frame = chunked.next() { again.append(frame) }
        }
        check(frames.map(described) == again.map(described), "frames depend on chunking: \(frames) vs \(again)")
        for case .tooLong(let prefix) in frames + again {
            check(
                !prefix.isEmpty && prefix.count <= LineFramer.prefixBytes,
                "a long line's prefix of \(prefix.count) bytes")
        }
        var values: [JSONValue] = []
        for case .line(let line) in frames {
            check(line.count <= maxLineBytes, "a line over maxLineBytes was taken")
            if let value = checkMessage(line) { values.append(value) }
        }
        checkRequests(values)
    }

    static func described(_ frame: LineFramer.Frame) -> String {
        switch frame {
        case .line(let line): "line \(Array(line))"
        // How much of a long line is shown depends on how much had arrived when it was known to be long.
        case .tooLong: "tooLong"
        case .longLineEnded(let length): "ended \(length)"
        }
    }

    /// One line as `PluginRunner.receive` reads it; returns the line's JSON value when it has one.
    static func checkMessage(_ line: ArraySlice<UInt8>) -> JSONValue? {
        let value = try? JSONValue(parsing: line)
        let message = value.flatMap { try? PluginMessage($0) }
        if let (id, result) = PluginMessage.compactResult(line) {
            guard case .result(let generalID, let general)? = message else {
                check(false, "the fast path took a line the general way reads as \(String(describing: message))")
                return value
            }
            check(id == generalID, "fast path id \(id), general \(generalID)")
            check(result.encoded() == general.encoded(), "fast path result \(result), general \(general)")
        }
        if case .result(_, let result)? = message { checkUpdateResults(result) }
        return value
    }

    /// `update`'s `{"model":M?,"effects":[…]?}` and `updateBatch`'s `{"model":M?,"results":[…]}` (section 2.5).
    static func checkUpdateResults(_ result: JSONValue) {
        let effectsFit: (JSONValue) -> Bool = { entry in
            switch entry["effects"] {
            case nil, .array?: true
            default: false
            }
        }
        let step = PluginUpdateDriver.step(result)
        check((step != nil) == (result.objectValue != nil && effectsFit(result)), "step took or refused \(result)")
        if let step {
            check(step.model == result["model"], "step model")
            check(step.effects == (result["effects"]?.arrayValue ?? []), "step effects")
        }
        let results = result["results"]?.arrayValue
        for count in Set([0, 1, 2, results?.count ?? 0]) {
            let batch = PluginUpdateDriver.batch(result, count: count)
            let fits =
                result.objectValue != nil && results?.count == count
                && results!.allSatisfy { $0.objectValue != nil && ($0["error"] != nil || effectsFit($0)) }
            check((batch != nil) == fits, "batch of \(count) took or refused \(result)")
            guard let batch, let results else { continue }
            check(batch.outcomes.count == count, "\(batch.outcomes.count) outcomes for \(count) events")
            let applied = batch.outcomes.indices.filter {
                if case .success = batch.outcomes[$0] { true } else { false }
            }
            check(applied.count == results.filter { $0["error"] == nil }.count, "applied events")
            check(batch.model == (applied.isEmpty ? nil : result["model"]), "the batch's model")
            for (index, outcome) in batch.outcomes.enumerated() {
                if case .success(let next) = outcome {
                    check(next.effects == (results[index]["effects"]?.arrayValue ?? []), "effects of event \(index)")
                    let carriesModel = index == applied.last && result["model"] != nil
                    check((next.model != nil) == carriesModel, "model on event \(index)")
                }
            }
        }
    }

    /// The update requests the host would send with the lines' values as the model and the events: within the limit,
    /// as many events as fit (a next one would not), none only when the first alone does not fit.
    static func checkRequests(_ values: [JSONValue]) {
        guard let model = values.first else { return }
        let modelText = model.encoded()
        let events = values.dropFirst().map { $0.encoded()[...] }[...]
        for (batch, maxEvents, limit) in [(false, 1, 1 << 20), (true, 3, 256), (true, 1024, 4096), (true, 2, 64)] {
            let built = PluginUpdateDriver.params(
                model: modelText, events: events, batch: batch, maxEvents: maxEvents, limit: limit)
            let empty =
                #"{"model":"#.utf8.count + modelText.count + (batch ? #","events":[]}"# : #","event":}"#).utf8.count
            guard let (params, count) = built else {
                check(events.first.map { empty + $0.count > limit } ?? true, "no request, though the first event fits")
                continue
            }
            check(
                count >= 1 && count <= (batch ? maxEvents : 1) && params.count <= limit,
                "\(count) events in \(params.count) bytes")
            if count < min(events.count, batch ? maxEvents : 1) {
                check(params.count + 1 + events[events.startIndex + count].count > limit, "the next event would fit")
            }
            guard case .object(let object)? = try? JSONValue(parsing: params) else {
                check(false, "params do not parse: \(String(decoding: params, as: UTF8.self))")
                continue
            }
            check(object["model"] == model, "params model")
            let sent = batch ? object["events"]?.arrayValue ?? [] : object["event"].map { [$0] } ?? []
            check(sent == Array(values.dropFirst().prefix(count)), "params events")
        }
    }
}
