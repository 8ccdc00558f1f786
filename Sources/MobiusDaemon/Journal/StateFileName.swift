/// File names numbered by seq (`00000000000000000042.journal`): 20 digits, so names sort as numbers do.
enum StateFileName {
    static func numbered(_ value: UInt64) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    /// The number in `<20 digits><suffix>`, or `nil` for any other name.
    static func number(in name: String, suffix: String) -> UInt64? {
        guard name.hasSuffix(suffix) else { return nil }
        let stem = name.dropLast(suffix.count)
        guard stem.count == 20, stem.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return UInt64(stem)
    }
}
