import Foundation
import MobiusSystem
import MobiusTestSupport

/// A fresh temporary directory (mode 0755, so other users can reach a socket in it), removed with everything in
/// it when released.
final class DaemonScratch {
    private let directory: TemporaryDirectory

    /// The directory's absolute path.
    var path: String { directory.path }

    init() {
        do {
            directory = try TemporaryDirectory(prefix: "mobiusd-it")
        } catch {
            preconditionFailure("cannot create a scratch directory: \(error)")
        }
        try? FileSystem.setMode(directory.path, 0o755)
    }

    /// `path/name`.
    func file(_ name: String) -> String { directory.file(name) }

    /// Writes `text` to `path/name` and returns the full path.
    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        // A failed write shows up as the file missing where the test uses it.
        _ = try? directory.write(text, to: name)
        return file(name)
    }

    /// The contents of `path/name` ("" when missing).
    func read(_ name: String) -> String {
        guard let bytes = try? FileSystem.read(file(name)) else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    deinit {
        // TemporaryDirectory.remove() leaves subdirectories behind; tests make some (sockets in nested paths).
        try? FileManager.default.removeItem(atPath: directory.path)
    }
}
