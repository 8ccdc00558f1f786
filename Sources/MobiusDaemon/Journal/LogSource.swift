import MobiusJSON

/// Where the control server's `log` streams get their items: the journal (memory for the newest records, the
/// segment files for older ones) or, with `--ephemeral`, the in-memory window alone.
protocol LogSource: AnyObject {
    /// The streams reading from here, told of each committed pass.
    var logStreams: LogStreams { get }
    /// The last committed seq.
    var committedSeq: UInt64 { get }
    /// Appends lines for `from...through` (about `maxBytes`) from memory; returns the next seq, or `nil` when `from`
    /// is not in memory.
    func appendLines(from: UInt64, through: UInt64, maxBytes: Int, to output: inout [UInt8]) -> UInt64?
    /// Whether older records can be read from disk (`false` with `--ephemeral`).
    var hasDisk: Bool { get }
    /// Reads lines for `from...through` from disk on the read thread; `done` runs on the reactor thread.
    func readLines(
        from: UInt64, through: UInt64, maxBytes: Int, cursor: JournalReader.Cursor?,
        done: @escaping (JournalReader.Chunk) -> Void)
    /// Appends `log {"models":true}` lines for `from...through` (about `maxBytes`) from memory, each with the loop's
    /// own model after its event; returns the next seq and the model after the last line appended, or `nil` when
    /// nothing could be (`from`'s record or model is not in memory).
    func appendModelLines(
        from: UInt64, through: UInt64, maxBytes: Int, to output: inout [UInt8]
    ) -> (next: UInt64, model: JSONValue)?
    /// Reads `log {"models":true}` lines for `from...through` on the history thread, replayed from `after` (the model
    /// right after `from - 1`) or, when `nil`, from the newest base before `from`; `done` runs on the reactor thread.
    func readModelLines(
        from: UInt64, through: UInt64, maxBytes: Int, cursor: JournalReader.Cursor?, after: JSONValue?,
        done: @escaping (JournalReader.Chunk) -> Void)
}

/// Where past models for `log {"models":true}` streams are replayed (the runtime's `ModelHistory`).
protocol PastModelReader: AnyObject {
    /// As `LogSource.readModelLines`.
    func readModelLines(
        from: UInt64, through: UInt64, maxBytes: Int, cursor: JournalReader.Cursor?, after: JSONValue?,
        done: @escaping (JournalReader.Chunk) -> Void)
}
