/// A progress line on stderr while stderr is a terminal (`mobiusd replay`, `mobiusctl model --at N`): one line,
/// rewritten in place, taken away before other output and at the end. Here, not in either program, so both write
/// the line and the figures in it alike.
package final class ProgressLine {
    private var showing = false

    /// A line on stderr, or `nil` when stderr is not a terminal: a pipe, a file or the journal gets no progress.
    package init?() {
        guard FileDescriptor.standardError.isTerminal else { return nil }
    }

    /// Shows `text` in place of the line shown before.
    package func show(_ text: String) {
        write("\r\u{1B}[K" + text)
        showing = true
    }

    /// Takes the line away, before other output and at the end.
    package func clear() {
        guard showing else { return }
        write("\r\u{1B}[K")
        showing = false
    }

    private func write(_ text: String) {
        try? FileDescriptor.standardError.writeAll(Array(text.utf8))
    }

    /// `42% (420,000 of 1,000,000 events)`; a count past the total (a journal that grew after it was counted) shows
    /// as its own total.
    package static func summary(done: Int, total: Int) -> String {
        let of = max(done, total)
        let percent = of == 0 ? 100 : done * 100 / of
        return "\(percent)% (\(grouped(done)) of \(grouped(of)) events)"
    }

    /// `1000000` as `1,000,000`.
    package static func grouped(_ value: Int) -> String {
        let digits = Array(String(value.magnitude))
        var text = value < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}
