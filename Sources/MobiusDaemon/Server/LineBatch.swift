import MobiusSystem

/// Complete request lines of one connection, cut from its input for the parse thread, and what interpreting them
/// gave. While a batch is out, the connection hands nothing else to the loop, so its replies stay in line order.
struct LineBatch: Sendable {
    /// A batch to interpret.
    struct Job: Sendable {
        let connection: ConnectionID
        /// Whole lines, each ending in `\n`.
        let bytes: [UInt8]
        /// The number of the batch's first line on its connection.
        let firstLine: Int
        let state: RequestState
        /// Reply bytes the connection may still be owed (its output bound): the batch stops when its estimates
        /// reach it, and right after a model-sized request, as the reactor would.
        let replyBudget: Int
        /// Inputs the loop's queue takes now.
        let maxInputs: Int
        let maxLineBytes: Int
    }

    /// What the batch gave.
    struct Result: Sendable {
        let connection: ConnectionID
        var inputs: [ClientInput] = []
        /// Bytes of the job's lines that were interpreted (the rest go back to the connection's input).
        var bytesConsumed = 0
        var linesConsumed = 0
        var state: RequestState
    }

    /// Interprets the job's lines in order until they end or a bound is reached. A line longer than
    /// `maxLineBytes` is left for the reactor, which answers `LineTooLong`.
    static func interpret(_ job: Job) -> Result {
        var result = Result(connection: job.connection, state: job.state)
        // About one input per 32 bytes of lines (a short event is 21), so a batch rarely grows its array.
        result.inputs.reserveCapacity(min(job.maxInputs, job.bytes.count / 32 + 1))
        var budget = job.replyBudget
        // The lines' texts are slices of the job's bytes, which the framer shares rather than copies.
        var lines = LineFramer(bytes: job.bytes, maxLineBytes: job.maxLineBytes)
        var textBytes = 0
        while !result.state.quit, !result.state.awaitingControl, result.inputs.count < job.maxInputs,
            case .line(let line)? = lines.peek()
        {
            lines.take()
            result.linesConsumed += 1
            result.bytesConsumed = lines.start
            let number = job.firstLine + result.linesConsumed - 1
            guard let input = RequestInterpreter.interpret(line, number: number, state: &result.state) else { continue }
            textBytes += input.eventTextCount
            let estimate = RequestInterpreter.replyEstimate(input)
            result.inputs.append(input)
            if estimate == ClientConnection.modelSized { break }
            budget -= estimate
            if budget < 1024 { break }
        }
        // Event texts are slices of the batch, which they keep alive until their pass is committed. When they are
        // less than half of it (events among long other lines), each gets bytes of its own, so what the queue holds
        // stays within twice the events' size.
        if textBytes > 0 && textBytes * 2 < result.bytesConsumed {
            for index in result.inputs.indices {
                if case .event(let json, let text?, let ticket) = result.inputs[index] {
                    result.inputs[index] = .event(json, text: Array(text)[...], ticket)
                }
            }
        }
        return result
    }
}
