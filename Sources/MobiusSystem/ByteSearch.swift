internal import Glibc

/// Finding a byte in a buffer with the C library's `memchr`, which compares many bytes per step: request lines are
/// split on newlines per request, so the search runs over every byte a client sends.
package enum ByteSearch {
    /// The index of the first `byte` in `slice` (an index of the array it is a slice of), or `nil`.
    package static func firstIndex(of byte: UInt8, in slice: ArraySlice<UInt8>) -> Int? {
        guard !slice.isEmpty else { return nil }
        return slice.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let found = memchr(base, Int32(byte), buffer.count) else { return nil }
            return slice.startIndex + UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
        }
    }
}
