/// mobiusctl's exit statuses (also in `--help` and docs/mobiusctl.md).
enum ExitStatus {
    /// Done, or a stream ended by the daemon or by Ctrl-C.
    static let success: Int32 = 0
    /// The daemon answered with an error reply (for `reload`: the new config was refused).
    static let errorReply: Int32 = 1
    /// Bad command line, or `send` got invalid JSON.
    static let usage: Int32 = 2
    /// The daemon could not be reached, closed the connection before answering, or did not answer in time.
    static let unreachable: Int32 = 3
    /// `metrics --output FILE` could not write FILE (it is left as it was).
    static let outputFailed: Int32 = 4
}
