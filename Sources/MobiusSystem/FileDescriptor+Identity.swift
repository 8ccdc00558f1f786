extension FileDescriptor {
    /// The device and inode the descriptor refers to, as `st_dev:st_ino` in decimal: the form of systemd's
    /// `JOURNAL_STREAM`, so a process can tell whether its stderr is still the stream systemd connected to the
    /// journal. `nil` when `fstat` fails. The corresponding C function is `fstat`.
    package var deviceAndInode: String? {
        guard let info = try? Syscall.fstat(rawValue).get() else { return nil }
        return "\(info.device):\(info.inode)"
    }
}
