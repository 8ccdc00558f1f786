/// What the file system says about one path: its kind, owner and permission bits.
package struct FileStatus: Sendable, Equatable {
    /// The kind of file.
    package enum Kind: Sendable, Equatable {
        case directory, symbolicLink, socket, regularFile, other
    }

    /// The kind of file.
    package let kind: Kind
    /// The owner's uid.
    package let owner: UInt32
    /// The group's gid.
    package let group: UInt32
    /// Permission bits including setuid, setgid and sticky (`st_mode & 07777`).
    package let permissions: UInt32

    /// Whether the sticky bit is set (on a directory: only owners may remove or rename entries).
    package var isSticky: Bool { permissions & 0o1000 != 0 }
    /// Whether users other than the owner and group may write.
    package var isWritableByOthers: Bool { permissions & 0o002 != 0 }
    /// Whether the group may write.
    package var isWritableByGroup: Bool { permissions & 0o020 != 0 }
}

/// One version of a regular file (`FileSystem.version`): a file replaced or written since compares unequal.
package struct FileVersion: Sendable, Equatable {
    package let device: UInt64
    package let inode: UInt64
    package let size: Int64
    package let modifiedSeconds: Int64
    package let modifiedNanoseconds: Int64
}
