import MobiusSystem

/// Lines from a blocking descriptor, without their newline; `nil` at the end.
struct BenchLines {
    private let input: FileDescriptor
    private var buffer: [UInt8] = []
    private var start = 0
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    init(_ input: FileDescriptor) {
        self.input = input
    }

    mutating func next() -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return line
            }
            buffer.removeFirst(start)
            start = 0
            let count = chunk.withUnsafeMutableBytes { raw -> Int in
                guard case .transferred(let count)? = try? input.read(into: raw) else { return 0 }
                return count
            }
            if count == 0 { return nil }
            buffer += chunk[0..<count]
        }
    }
}
