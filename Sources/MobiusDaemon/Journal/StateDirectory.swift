import MobiusSystem

/// The daemon's state directory (docs/protocol.md 5), opened for this process: created if missing, checked, locked so
/// that no second daemon shares its journal, and holding the history's epoch.
struct StateDirectory {
    let path: String
    /// The locked `lock` file, open for the daemon's life (the lock goes when the process does).
    let lockFile: FileDescriptor
    /// The history's name, kept in the `epoch` file.
    let epoch: String
    /// Whether this start made a new epoch (a fresh directory).
    let isNew: Bool

    static let epochName = "epoch"
    static let lockName = "lock"

    /// Where state goes: `$STATE_DIRECTORY` under systemd (the first, if it lists several), else `--state-dir`,
    /// else `state.directory`, else `$XDG_STATE_HOME/mobiusd/<app>`, else `~/.local/state/mobiusd/<app>`.
    static func resolve(flag: String?, configured: String?, app: String) -> String {
        if let systemd = SystemProcess.environment("STATE_DIRECTORY"), !systemd.isEmpty {
            return String(systemd.split(separator: ":").first ?? Substring(systemd))
        }
        if let flag { return FileSystem.resolve(flag, against: FileSystem.currentDirectory()) }
        if let configured { return configured }
        if let xdg = SystemProcess.environment("XDG_STATE_HOME"), xdg.hasPrefix("/") {
            return "\(xdg)/mobiusd/\(app)"
        }
        let home = SystemProcess.environment("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        return FileSystem.resolve(".local/state/mobiusd/\(app)", against: home)
    }

    /// Creates (0700, parents too), checks and locks the directory, and reads or makes its epoch.
    ///
    /// - Throws: `DaemonStartError` naming the path when it cannot be made, belongs to someone else or is writable
    ///   by others, another daemon holds its lock, or its epoch file is missing or damaged while it holds a
    ///   journal.
    static func open(_ path: String) throws(DaemonStartError) -> StateDirectory {
        do {
            if try FileSystem.status(path, followingLinks: true) == nil {
                try FileSystem.makeDirectories(path, mode: 0o700)
            }
        } catch {
            throw DaemonStartError(description: "cannot create the state directory \(path): \(error)")
        }
        try check(path)
        let lock: FileDescriptor
        do {
            lock = try FileDescriptor.openFile(path + "/" + lockName, .readWriteCreating(mode: 0o600))
        } catch {
            throw DaemonStartError(description: "cannot open the lock file in the state directory \(path): \(error)")
        }
        do {
            guard try lock.tryLockExclusive() else {
                lock.close()
                throw DaemonStartError(
                    description: "the state directory \(path) is in use by another mobiusd (its lock file is held); "
                        + "stop that daemon or give this one another --state-dir")
            }
        } catch let error as DaemonStartError {
            throw error
        } catch {
            lock.close()
            throw DaemonStartError(description: "cannot lock the state directory \(path): \(error)")
        }
        do {
            let (epoch, isNew) = try readOrCreateEpoch(path)
            return StateDirectory(path: path, lockFile: lock, epoch: epoch, isNew: isNew)
        } catch {
            lock.close()
            throw error
        }
    }

    /// The directory must be a directory owned by the daemon's user and not writable by group or others: another
    /// user must not be able to plant or swap its files.
    private static func check(_ path: String) throws(DaemonStartError) {
        let status: FileStatus?
        do {
            status = try FileSystem.status(path, followingLinks: true)
        } catch {
            throw DaemonStartError(description: "cannot inspect the state directory \(path): \(error)")
        }
        guard let status, status.kind == .directory else {
            throw DaemonStartError(description: "the state directory \(path) is not a directory")
        }
        guard status.owner == SystemProcess.userID else {
            throw DaemonStartError(
                description: "the state directory \(path) belongs to uid \(status.owner), not to the daemon's "
                    + "uid \(SystemProcess.userID)")
        }
        guard status.permissions & 0o022 == 0 else {
            throw DaemonStartError(
                description: "the state directory \(path) is writable by group or others (mode "
                    + "\(String(status.permissions, radix: 8))); make it 0700 or 0755")
        }
    }

    private static func readOrCreateEpoch(_ path: String) throws(DaemonStartError) -> (String, Bool) {
        let file = path + "/" + epochName
        if let bytes = try? FileSystem.read(file) {
            let text = String(decoding: bytes, as: UTF8.self)
            let epoch = text.hasSuffix("\n") ? String(text.dropLast()) : text
            guard isEpoch(epoch) else {
                throw DaemonStartError(
                    description: "the epoch file \(file) is damaged (expected 16 hex digits); restore it from a backup "
                        + "of the state directory")
            }
            return (epoch, false)
        }
        let names = (try? DirectoryListing.names(in: path)) ?? []
        if names.contains(where: { JournalSegment.firstSeq(ofName: $0) != nil || SnapshotFile.seq(ofName: $0) != nil })
        {
            throw DaemonStartError(
                description: "the state directory \(path) holds a journal but no epoch file; restore \(file) from a "
                    + "backup (it names the history clients resume by)")
        }
        let epoch = newEpoch()
        do {
            let temporary = file + ".tmp"
            try FileSystem.remove(temporary)
            let fd = try FileDescriptor.openFile(temporary, .createNew(mode: 0o600))
            defer { fd.close() }
            let bytes = Array((epoch + "\n").utf8)
            try fd.writeAll(bytes, at: 0)
            try fd.synchronize()
            try FileSystem.rename(temporary, to: file)
            try FileSystem.synchronizeDirectory(path)
        } catch {
            throw DaemonStartError(description: "cannot write the epoch file \(file): \(error)")
        }
        return (epoch, true)
    }

    /// Whether `text` is an epoch: 16 lowercase hex digits.
    static func isEpoch(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// A new history's name: 16 random hex digits.
    static func newEpoch() -> String {
        let digits = Array("0123456789abcdef")
        return String(SystemProcess.randomBytes(8).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}
