/// The exact value of a JSON number as sign, significant digits and a power of ten, used to
/// compare numbers written differently (`1.0` and `1`, `10e-1` and `1`).
///
/// Digits carry no leading or trailing zeros; zero has no digits and is never negative.
/// Exponents beyond ±2^60 saturate (such numbers compare equal to each other's saturated value).
struct DecimalValue: Hashable {
    static let integerTag: UInt8 = 1
    static let decimalTag: UInt8 = 2
    private static let exponentLimit = 1 << 60

    var negative: Bool
    var digits: [UInt8]
    var exponent: Int

    init(integer magnitude: UInt64, negative: Bool) {
        var digits: [UInt8] = []
        var rest = magnitude
        var exponent = 0
        while rest != 0 && rest % 10 == 0 {
            rest /= 10
            exponent += 1
        }
        while rest != 0 {
            digits.append(UInt8(rest % 10))
            rest /= 10
        }
        digits.reverse()
        self.negative = negative && !digits.isEmpty
        self.digits = digits
        self.exponent = exponent
    }

    /// Normalises a valid JSON number literal (or Swift's `Double.description`, which also
    /// uses `e+NN`).
    init(literal: String) {
        var negative = false
        var digits: [UInt8] = []
        var fractionDigits = 0
        var exponent = 0
        var exponentNegative = false
        var part = 0  // 0 integer, 1 fraction, 2 exponent
        for byte in literal.utf8 {
            switch byte {
            case UInt8(ascii: "-"):
                if part == 2 { exponentNegative = true } else { negative = true }
            case UInt8(ascii: "+"):
                continue
            case UInt8(ascii: "."):
                part = 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                part = 2
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let digit = byte &- UInt8(ascii: "0")
                if part == 2 {
                    // Saturates at the limit, before another digit could overflow `Int`.
                    exponent =
                        exponent <= (DecimalValue.exponentLimit - Int(digit)) / 10
                        ? exponent * 10 + Int(digit) : DecimalValue.exponentLimit
                } else {
                    if digit != 0 || !digits.isEmpty { digits.append(digit) }
                    if part == 1 { fractionDigits += 1 }
                }
            default:
                continue
            }
        }
        var scale = (exponentNegative ? -exponent : exponent) - fractionDigits
        while let last = digits.last, last == 0 {
            digits.removeLast()
            scale += 1
        }
        self.negative = negative && !digits.isEmpty
        self.digits = digits
        self.exponent = digits.isEmpty ? 0 : scale
    }

    /// The magnitude when the value is an integer that fits `UInt64`.
    var magnitude: UInt64? {
        guard exponent >= 0, digits.count + exponent <= 20 else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = shifted.addingReportingOverflow(UInt64(digit))
            if o1 || o2 { return nil }
            value = sum
        }
        for _ in 0..<exponent {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            value = shifted
        }
        return value
    }

    var int64: Int64? {
        guard let magnitude else { return nil }
        if negative {
            return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    var uint64: UInt64? {
        negative ? nil : magnitude
    }

    static func hashInteger(_ magnitude: UInt64, negative: Bool, into hasher: inout Hasher) {
        hasher.combine(integerTag)
        hasher.combine(magnitude)
        hasher.combine(negative)
    }

    func hash(into hasher: inout Hasher) {
        // Integers hash like JSONNumber's integer storage so `1.0` and `1` collide.
        if let magnitude {
            DecimalValue.hashInteger(magnitude, negative: negative, into: &hasher)
        } else {
            hasher.combine(DecimalValue.decimalTag)
            hasher.combine(negative)
            hasher.combine(digits)
            hasher.combine(exponent)
        }
    }
}
