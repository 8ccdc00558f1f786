/// The fuzzer's bytes read as a plan: numbers, choices and byte strings, in order. Past the end every read gives
/// zeros (and empty strings), so any input, the empty one too, is a complete plan.
struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A number in `range`, from as few bytes as the range needs.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound)
        guard span > 0 else { return range.lowerBound }
        var value: UInt64 = 0
        var covered: UInt64 = 0
        while covered < span {
            value = value << 8 | UInt64(byte())
            covered = covered << 8 | 0xFF
        }
        return range.lowerBound + Int(value % (span + 1))
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// True about once in `n` reads.
    mutating func oneIn(_ n: Int) -> Bool { int(0...(n - 1)) == 0 }

    /// Exactly `count` bytes (zeros past the end).
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in byte() }
    }

    /// A length in `0...maxCount`, then that many bytes.
    mutating func bytes(upTo maxCount: Int) -> [UInt8] {
        bytes(int(0...maxCount))
    }

    /// Every byte not read yet.
    mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }
}
