/// Formats UTC timestamps as RFC 3339 (`2026-11-29T16:31:53.123Z`) without Foundation.
enum RFC3339 {
    /// A time in nanoseconds since 1970 (a journal record's), negative ones included.
    static func format(nanosecondsSince1970 time: Int64, fractionDigits: Int) -> String {
        let seconds = time >= 0 ? time / 1_000_000_000 : (time + 1) / 1_000_000_000 - 1
        let nanoseconds = time - seconds * 1_000_000_000
        return format(seconds: Int(seconds), nanoseconds: Int(nanoseconds), fractionDigits: fractionDigits)
    }

    static func format(seconds: Int, nanoseconds: Int, fractionDigits: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
        text += "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if fractionDigits > 0 {
            var divisor = 1_000_000_000
            for _ in 0..<fractionDigits { divisor /= 10 }
            text += "." + pad(nanoseconds / max(divisor, 1), fractionDigits)
        }
        return text + "Z"
    }

    /// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar.
    static func civilDate(daysSinceEpoch: Int) -> (Int, Int, Int) {
        let shifted = daysSinceEpoch + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
