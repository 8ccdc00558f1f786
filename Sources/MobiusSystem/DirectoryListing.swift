internal import Glibc

/// The names in a directory, for walking small kernel-made directories like /proc/PID/task and scratch folders.
package enum DirectoryListing {
    /// The entries of `path` in the order the kernel returns them, without `.` and `..`. The corresponding C
    /// functions are `opendir`, `readdir` and `closedir`.
    /// - Throws: `SystemError` when the directory cannot be opened or read (ENOENT when it is gone).
    package static func names(in path: String) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else { throw SystemError.current("opendir", path) }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            // readdir returns NULL both at the end and on error; only errno tells them apart.
            Glibc.errno = 0
            guard let entry = readdir(directory) else {
                if Glibc.errno != 0 { throw SystemError.current("readdir", path) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }
}
