extension FileDescriptor {
    /// How `openFile` opens a file.
    package enum FileAccess: Sendable {
        /// Read only; the file must exist.
        case readOnly
        /// Read and write; the file must exist.
        case readWrite
        /// Read and write, created with the given mode if missing (never truncated).
        case readWriteCreating(mode: UInt32)
        /// Write only, created with the given mode; fails with EEXIST if something is there.
        case createNew(mode: UInt32)
    }

    /// Opens a regular file, close-on-exec, without following a final symlink for new files. The corresponding C
    /// function is `open`.
    package static func openFile(_ path: String, _ access: FileAccess) throws(SystemError) -> FileDescriptor {
        FileDescriptor(rawValue: try Syscall.open(path, access).get("open", path))
    }

    /// Writes all of `bytes` at `offset`, leaving the file position alone. A short write is continued; the first
    /// failure throws (ENOSPC, EIO, EFBIG…). The corresponding C function is `pwrite`.
    package func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let count = try Syscall.pwrite(
                rawValue, bytes.baseAddress! + done, bytes.count - done, at: offset + Int64(done)
            ).get("pwrite", description)
            guard count > 0 else { throw SystemError(errno: .ioError, operation: "pwrite", subject: description) }
            done += count
        }
    }

    /// Writes all of `bytes` at `offset` (see the buffer form). The corresponding C function is `pwrite`.
    package func writeAll(_ bytes: [UInt8], at offset: Int64) throws(SystemError) {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(SystemError) in try writeAll(raw, at: offset) } }
        try result.get()
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many (0 at the end of the file). The corresponding
    /// C function is `pread`.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SystemError) -> Int {
        try Syscall.pread(rawValue, buffer.baseAddress, buffer.count, at: offset).get("pread", description)
    }

    /// Flushes the file's data (and the metadata needed to read it back, such as its size) to stable storage.
    /// The corresponding C function is `fdatasync`.
    package func synchronizeData() throws(SystemError) {
        try Syscall.fdatasync(rawValue).get("fdatasync", description)
    }

    /// Flushes the file's data and metadata to stable storage (for a directory: its entries). The corresponding C
    /// function is `fsync`.
    package func synchronize() throws(SystemError) {
        try Syscall.fsync(rawValue).get("fsync", description)
    }

    /// Cuts the file to `length` bytes. The corresponding C function is `ftruncate`.
    package func truncate(to length: Int64) throws(SystemError) {
        try Syscall.ftruncate(rawValue, length).get("ftruncate", description)
    }

    /// The file's size in bytes. The corresponding C function is `fstat`.
    package func size() throws(SystemError) -> Int64 {
        try Syscall.fstat(rawValue).get("fstat", description).size
    }

    /// Takes an exclusive advisory lock on the open file without waiting; returns `false` when another open file
    /// description holds it. The lock goes with the descriptor (released when it is closed or the process ends).
    /// The corresponding C function is `flock` with `LOCK_EX | LOCK_NB`.
    package func tryLockExclusive() throws(SystemError) -> Bool {
        switch Syscall.lockExclusiveWithoutWaiting(rawValue) {
        case .success: return true
        case .failure(.wouldBlock): return false
        case .failure(let errno): throw SystemError(errno: errno, operation: "flock", subject: description)
        }
    }
}

extension FileDescriptor {
    /// A second descriptor for the same open file (close-on-exec), so another thread can sync it while this one
    /// may be closed. The corresponding C function is `fcntl` with `F_DUPFD_CLOEXEC`.
    package func duplicate() throws(SystemError) -> FileDescriptor {
        FileDescriptor(rawValue: try Syscall.duplicate(rawValue).get("fcntl(F_DUPFD_CLOEXEC)", description))
    }
}
