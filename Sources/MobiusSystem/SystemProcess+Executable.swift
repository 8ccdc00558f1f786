internal import Glibc

extension SystemProcess {
    /// The path of the running executable, from /proc/self/exe; `nil` when it cannot be read. The corresponding C
    /// function is `readlink`.
    package static var executablePath: String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { raw in
            readlink("/proc/self/exe", raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count)
        }
        guard count > 0, count < buffer.count else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}
