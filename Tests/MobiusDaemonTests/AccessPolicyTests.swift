import Testing

@testable import MobiusDaemon
@testable import MobiusSystem

/// Who may read and write (docs/protocol.md 1.6), from the peer's credentials: uid, primary group and the
/// supplementary groups it connected with.
@Suite("Access policy")
struct AccessPolicyTests {
    static func peer(uid: UInt32, gid: UInt32, groups: [UInt32] = []) -> PeerCredentials {
        PeerCredentials(pid: 4242, uid: uid, gid: gid, groups: groups)
    }

    /// Compares a decision with an expected one (tuples are not `Equatable`).
    static func decision(_ value: (read: Bool, write: Bool)) -> [Bool] {
        [value.read, value.write]
    }

    @Test("the default: anyone reads; the daemon's user and root write")
    func defaults() {
        let policy = AccessPolicy.defaults(daemonUID: 1000)
        #expect(Self.decision(policy.permissions(for: Self.peer(uid: 1000, gid: 1000))) == [true, true])
        #expect(Self.decision(policy.permissions(for: Self.peer(uid: 0, gid: 0))) == [true, true])
        #expect(Self.decision(policy.permissions(for: Self.peer(uid: 1001, gid: 1000))) == [true, false])
    }

    @Test("a group rule matches the primary group or a supplementary group the peer connected with")
    func groups() {
        let policy = AccessPolicy(read: [.group(100)], write: [.group(200)])
        #expect(Self.decision(policy.permissions(for: Self.peer(uid: 2000, gid: 100))) == [true, false])
        #expect(
            Self.decision(policy.permissions(for: Self.peer(uid: 2000, gid: 50, groups: [7, 200]))) == [false, true])
        #expect(
            Self.decision(policy.permissions(for: Self.peer(uid: 2000, gid: 50, groups: [100, 200]))) == [true, true])
        #expect(Self.decision(policy.permissions(for: Self.peer(uid: 2000, gid: 50, groups: [7]))) == [false, false])
        #expect(
            Self.decision(policy.permissions(for: Self.peer(uid: 100, gid: 50))) == [false, false], "a uid is not a gid"
        )
    }

    @Test("an empty write list lets nobody write, not even root")
    func emptyWriteList() {
        let policy = AccessPolicy(read: [.anyone], write: [])
        #expect(Self.decision(policy.permissions(for: Self.peer(uid: 0, gid: 0, groups: [0]))) == [true, false])
    }

    @Test("access-list entries: *, numeric uid, numeric @gid, root by name")
    func ruleParsing() {
        #expect(AccessPolicy.rule("*") == .anyone)
        #expect(AccessPolicy.rule("1000") == .user(1000))
        #expect(AccessPolicy.rule("@27") == .group(27))
        #expect(AccessPolicy.rule("root") == .user(0))
        #expect(AccessPolicy.rule("@root") == .group(0))
        #expect(AccessPolicy.rule("no-such-user-mobiusd-test") == nil)
    }
}

/// The socket directory checks of docs/protocol.md 1.1, on file-status values.
@Suite("Socket directory checks")
struct SocketDirectoryProblemTests {
    static let uid: UInt32 = 1000
    static let gid: UInt32 = 1000

    static func problem(
        _ kind: FileStatus.Kind = .directory, owner: UInt32 = uid, group: UInt32 = gid, mode: UInt32
    ) -> String? {
        SocketDirectory.problem(
            with: FileStatus(kind: kind, owner: owner, group: group, permissions: mode), uid: uid, gid: gid)
    }

    @Test("the daemon's own private or world-readable directory is fine, and so is root's")
    func acceptable() {
        #expect(Self.problem(mode: 0o700) == nil)
        #expect(Self.problem(mode: 0o755) == nil)
        #expect(Self.problem(owner: 0, group: 0, mode: 0o755) == nil)
    }

    @Test("a directory owned by another user is refused, naming both uids")
    func otherOwner() throws {
        let problem = try #require(Self.problem(owner: 1001, mode: 0o700))
        #expect(problem.contains("1001") && problem.contains("1000"))
    }

    @Test("writable by others: refused without the sticky bit, accepted with it (as /tmp)")
    func othersWritable() throws {
        let problem = try #require(Self.problem(owner: 0, group: 0, mode: 0o777))
        #expect(problem.contains("777") && problem.contains("sticky"))
        #expect(Self.problem(owner: 0, group: 0, mode: 0o1777) == nil)
        #expect(Self.problem(mode: 0o1777) == nil)
    }

    @Test("group-writable: fine for the daemon's own group, refused for another group")
    func groupWritable() throws {
        #expect(Self.problem(group: Self.gid, mode: 0o770) == nil)
        #expect(Self.problem(group: Self.gid, mode: 0o775) == nil)
        let problem = try #require(Self.problem(group: 27, mode: 0o770))
        #expect(problem.contains("27") && problem.contains("770"))
        #expect(Self.problem(owner: 0, group: 27, mode: 0o775) != nil)
    }

    @Test("anything but a directory is refused")
    func notADirectory() {
        for kind: FileStatus.Kind in [.regularFile, .symbolicLink, .socket, .other] {
            #expect(Self.problem(kind, mode: 0o700) == "is not a directory")
        }
    }
}
