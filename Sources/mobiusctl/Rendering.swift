/// What to print for one daemon line in human-readable mode.
struct Rendering: Equatable {
    /// Lines for stdout.
    var output: [String] = []
    /// Lines for stderr (progress notes that are not data).
    var notes: [String] = []
}
