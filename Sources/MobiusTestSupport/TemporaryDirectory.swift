internal import Glibc
import MobiusSystem

/// A fresh directory only this user can enter (mode 0700), for scratch files: sockets, configs, logs.
package struct TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    package let path: String

    /// Creates `PARENT/PREFIX.XXXXXX` with a unique suffix. The corresponding C function is `mkdtemp`.
    package init(prefix: String, parent: String = "/tmp") throws(SystemError) {
        var template = Array("\(parent)/\(prefix).XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        guard created else { throw SystemError.current("mkdtemp", "\(parent)/\(prefix).XXXXXX") }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The path of `name` inside the directory.
    package func file(_ name: String) -> String {
        path + "/" + name
    }

    /// Writes `text` to the file `name` (mode 0644), replacing what was there; returns its path.
    @discardableResult
    package func write(_ text: String, to name: String) throws(SystemError) -> String {
        let target = file(name)
        let fd = try FileDescriptor.create(target)
        defer { fd.close() }
        try fd.writeAll(Array(text.utf8))
        return target
    }

    /// Removes the files directly inside, then the directory. Best effort: meant for clean-up on the way out, so
    /// failures are ignored (a subdirectory keeps the directory in place).
    package func remove() {
        for name in (try? DirectoryListing.names(in: path)) ?? [] {
            _ = unlink(file(name))
        }
        _ = rmdir(path)
    }
}
