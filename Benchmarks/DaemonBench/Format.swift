/// Number formatting without Foundation.
enum Format {
    /// `value` rounded to `places` decimals, e.g. `decimal(3.14159, 2)` is "3.14".
    static func decimal(_ value: Double, _ places: Int) -> String {
        guard value.isFinite else { return "n/a" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = Int((abs(value) * scale).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard places > 0 else { return sign + String(scaled) }
        let whole = scaled / Int(scale)
        var fraction = String(scaled % Int(scale))
        while fraction.count < places { fraction = "0" + fraction }
        return "\(sign)\(whole).\(fraction)"
    }

    /// A figure in its unit with sensible precision: rates as whole numbers, small values with decimals.
    static func figure(_ value: Double) -> String {
        if abs(value) >= 1000 { return decimal(value, 0) }
        if abs(value) >= 10 { return decimal(value, 1) }
        return decimal(value, 2)
    }

    /// `text` padded with spaces to `width` columns (right-aligned when `right`).
    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return right ? padding + text : text + padding
    }
}
