import Glibc
import MobiusJSON
import Testing

/// docs/protocol.md 1.6: peer credentials decide permissions, and connection limits answer `Overloaded`.
///
/// Other users are played by socat, the documented client, started through `setpriv` with another uid, gid and
/// supplementary groups (`OtherUser`).
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct DaemonAccessTests {
    static let increment = #"{"type":"increment"}"#

    /// The replies to `lines` sent by socat running as nobody.
    static func asNobody(_ daemon: DaemonProcess, _ lines: [String]) throws -> [DaemonReply] {
        try OtherUser.nobody.replies(daemon, lines)
    }

    /// A config with a world-connectable socket, plus `extra` members.
    static func config(_ extra: String = "") -> String {
        #"{"update":{"builtin":"counter"},"socket":{"mode":"0666"}"# + (extra.isEmpty ? "" : ",\(extra)") + "}"
    }

    @Test func testsRunAsRootSoAnotherUserExists() {
        // The access tests below depend on it; say so plainly instead of failing obscurely.
        #expect(getuid() == 0, "the access tests need to run as root to act as nobody")
    }

    @Test func defaultAccessLetsOthersReadButNotWrite() throws {
        let daemon = try DaemonProcess.start(config: Self.config())
        let replies = try Self.asNobody(daemon, [Self.increment, "send " + Self.increment, "model", "hello"])
        #expect(replies.count == 4, "\(replies)")
        guard replies.count == 4 else { return }
        #expect(replies[0].errorCode == "PermissionDenied" && replies[0].lineNumber == 1, "\(replies[0])")
        #expect(replies[1].errorCode == "PermissionDenied" && replies[1].lineNumber == 2, "\(replies[1])")
        #expect(replies[2].ok == true && replies[2].model == 0, "\(replies[2])")
        #expect(replies[3].ok == true && replies[3]["protocol"] == 1, "\(replies[3])")
        // Root (the daemon's own uid) may write; nobody's events were not applied but were counted.
        let root = try daemon.connect()
        #expect(try root.request(Self.increment).seq == 1)
        let status = try root.request("status")
        #expect(status["events"]?["rejected"] == 2, "\(status)")
    }

    @Test func readLimitedToRootDeniesOthersEvenModel() throws {
        let daemon = try DaemonProcess.start(config: Self.config(#""access":{"read":["root"]}"#))
        let replies = try Self.asNobody(daemon, ["model", "subscribe", "status", Self.increment])
        #expect(replies.map(\.errorCode) == Array(repeating: "PermissionDenied", count: 4), "\(replies)")
        #expect(replies.map(\.lineNumber) == [1, 2, 3, 4], "\(replies)")
        #expect(try daemon.connect().request("model").ok == true, "root may still read")
    }

    @Test func writeForEveryoneLetsNobodySendEvents() throws {
        let daemon = try DaemonProcess.start(config: Self.config(#""access":{"write":["*"]}"#))
        let replies = try Self.asNobody(daemon, [Self.increment, Self.increment, "model"])
        #expect(
            replies.map(\.line) == [
                #"{"ok":true,"seq":1}"#, #"{"ok":true,"seq":2}"#, #"{"ok":true,"seq":2,"model":2}"#,
            ])
    }

    @Test(arguments: ["65534", "nobody", "@65534", "@nogroup"])
    func writeListNamingNobodyLetsItWrite(entry: String) throws {
        let daemon = try DaemonProcess.start(config: Self.config(#""access":{"write":["\#(entry)"]}"#))
        let replies = try Self.asNobody(daemon, [Self.increment])
        #expect(replies.first?.isAck == true, "\(replies)")
        // The list replaces the default: root is no longer a writer.
        let root = try daemon.connect().request(Self.increment)
        #expect(root.errorCode == "PermissionDenied", "\(root)")
    }

    // MARK: - By user and by group

    /// One client of `identityCases`: who it is, and whether it may read and write under `byUserAndGroup`.
    struct IdentityCase: CustomTestStringConvertible, Sendable {
        let name: String
        let uid: UInt32
        let gid: UInt32
        let groups: [UInt32]
        let mayRead: Bool
        let mayWrite: Bool
        var testDescription: String { name }
        var user: OtherUser { OtherUser(uid: uid, gid: gid, groups: groups) }
    }

    /// Readers: the user daemon (uid 1) and group 4300; writers: uid 4242 and group 4301. None of the numbers but 1
    /// has an entry in /etc/passwd or /etc/group: what counts is the peer's credentials.
    static let byUserAndGroup = Self.config(#""access":{"read":["daemon","@4300"],"write":["4242","@4301"]}"#)

    static let identityCases: [IdentityCase] = [
        IdentityCase(name: "a writer by uid", uid: 4242, gid: 4242, groups: [], mayRead: false, mayWrite: true),
        IdentityCase(name: "a reader by user name", uid: 1, gid: 1, groups: [], mayRead: true, mayWrite: false),
        IdentityCase(
            name: "a supplementary member of the read group", uid: 65534, gid: 65534, groups: [4300], mayRead: true,
            mayWrite: false),
        IdentityCase(
            name: "a supplementary member of the write group", uid: 65534, gid: 65534, groups: [7, 4301],
            mayRead: false, mayWrite: true),
        IdentityCase(
            name: "the write group as primary group", uid: 65534, gid: 4301, groups: [], mayRead: false,
            mayWrite: true),
        IdentityCase(
            name: "a member of both groups", uid: 65534, gid: 65534, groups: [4300, 4301], mayRead: true,
            mayWrite: true),
        IdentityCase(
            name: "in neither list", uid: 65534, gid: 65534, groups: [4299, 4302], mayRead: false, mayWrite: false),
        IdentityCase(
            name: "the writer's uid as a group", uid: 65534, gid: 65534, groups: [4242], mayRead: false,
            mayWrite: false),
    ]

    /// Each identity sends an event, `model`, `status` and `send EVENT`; what it may not do is `PermissionDenied`
    /// on that line, and the connection stays open for the next.
    @Test(arguments: identityCases)
    func readAndWriteDecidedByUidGidAndGroups(_ identity: IdentityCase) throws {
        let daemon = try DaemonProcess.start(config: Self.byUserAndGroup)
        let replies = try identity.user.replies(
            daemon, [Self.increment, "model", "status", "send " + Self.increment])
        #expect(replies.count == 4, "\(replies)")
        guard replies.count == 4 else { return }
        for (index, reply) in replies.enumerated() {
            let allowed = index == 0 || index == 3 ? identity.mayWrite : identity.mayRead
            if allowed {
                #expect(reply.ok == true, "line \(index + 1): \(reply)")
            } else {
                #expect(reply.errorCode == "PermissionDenied", "line \(index + 1): \(reply)")
                #expect(reply.lineNumber == Int64(index + 1), "\(reply)")
            }
        }
        if identity.mayWrite {
            #expect(replies[0].line == #"{"ok":true,"seq":1}"#)
            #expect(replies[3].line == #"{"ok":true,"seq":2}"#)
        }
        if identity.mayRead {
            #expect(replies[1].model == (identity.mayWrite ? 1 : 0), "\(replies[1])")
        }
        // What was refused changed nothing: a reader sees the model as the allowed events left it.
        let model = try OtherUser(uid: 1).replies(daemon, ["model"])
        #expect(model.first?.model == (identity.mayWrite ? 2 : 0), "\(model)")
    }

    /// The groups that count are the ones the peer had when it connected (SO_PEERGROUPS), not the ones the group
    /// database lists for its user: a process that dropped a group has given up what the group allowed, and one
    /// given a group (`setpriv`, systemd's `SupplementaryGroups=`) has it. The daemon here sees a group database
    /// of its own (a private mount namespace with its own /etc/group) in which nobody is a member of group 4301.
    @Test(.enabled(if: SystemTools.canUnshareMounts, "needs unshare --mount (root) for a private /etc/group"))
    func groupsAreThePeersOwnNotTheDatabases() throws {
        let accounts = try PrivateAccounts(groups: ["mobiusd-writers:x:4301:nobody"])
        let daemon = try accounts.startDaemon(
            config: Self.config(#""access":{"read":["*"],"write":["@mobiusd-writers"]}"#))
        let dropped = try OtherUser.nobody.replies(daemon, [Self.increment])
        #expect(dropped.first?.errorCode == "PermissionDenied", "a member by /etc/group only: \(dropped)")
        let member = try OtherUser(uid: 65534, groups: [4301]).replies(daemon, [Self.increment])
        #expect(member.first?.line == #"{"ok":true,"seq":1}"#, "\(member)")
    }

    // MARK: - Who may connect: the socket file

    /// The kernel checks the socket file's mode at connect(): without write permission on it, a user is refused
    /// before the daemon sees anything, and socat reports EACCES.
    static func expectRefusedAtConnect(_ user: OtherUser, _ daemon: DaemonProcess) throws {
        let run = try user.socat(daemon.socketPath, ["model"])
        #expect(run.exit != .exited(0), "\(user): \(run.exit), stdout \(run.stdout)")
        #expect(run.stderr.contains("Permission denied"), "\(user): \(run.stderr)")
        #expect(run.stdout.isEmpty, "\(user) got an answer: \(run.stdout)")
    }

    @Test func socketGroupAndModeDecideWhoMayConnect() throws {
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"counter"},"socket":{"mode":"0660","group":"4300"}}"#)
        let file = HostileProbe.fileStatus(daemon.socketPath)
        #expect(file?.mode == 0o660 && file?.owner == 0 && file?.group == 4300, "\(String(describing: file))")
        let member = try OtherUser(uid: 65534, groups: [4300]).replies(daemon, ["model", Self.increment])
        #expect(member.first?.line == #"{"ok":true,"seq":0,"model":0}"#, "\(member)")
        #expect(
            member.count == 2 && member.last?.errorCode == "PermissionDenied", "connecting grants no write: \(member)")
        try Self.expectRefusedAtConnect(.nobody, daemon)
        try Self.expectRefusedAtConnect(OtherUser(uid: 65534, groups: [4301]), daemon)
        let status = try daemon.connect().request("status")
        #expect(status["events"]?["rejected"] == 1, "only the member's event reached the daemon: \(status)")
    }

    /// Without `socket` settings the file is 0660, owned by the daemon's user and group (root's here): other users
    /// cannot connect at all, members of the daemon's group can (and read, by the default `access.read`).
    @Test func defaultSocketLetsOnlyTheDaemonsUserAndGroupConnect() throws {
        let daemon = try DaemonProcess.start(config: #"{"update":{"builtin":"counter"}}"#)
        let file = HostileProbe.fileStatus(daemon.socketPath)
        #expect(file?.mode == 0o660 && file?.owner == 0 && file?.group == 0, "\(String(describing: file))")
        try Self.expectRefusedAtConnect(.nobody, daemon)
        let groupMember = try OtherUser(uid: 65534, groups: [0]).replies(daemon, ["model"])
        #expect(groupMember.first?.model == 0, "\(groupMember)")
    }

    @Test func mode0600ShutsOutTheGroupToo() throws {
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"counter"},"socket":{"mode":"0600","group":"4300"}}"#)
        #expect(HostileProbe.fileStatus(daemon.socketPath)?.mode == 0o600)
        try Self.expectRefusedAtConnect(OtherUser(uid: 65534, groups: [4300]), daemon)
    }

    // MARK: - Overloaded

    /// A connection the daemon has admitted (answers `ping`). DaemonProcess's start-up probe may still count
    /// against the limits for a moment after it closed; lingering connections can only cause extra refusals,
    /// never extra admissions, so retrying here keeps the refusal checks below exact.
    static func admittedClient(_ daemon: DaemonProcess) throws -> DaemonLineClient {
        var admitted: DaemonLineClient?
        try DaemonTraffic.eventually("a connection is admitted") {
            guard let client = try? daemon.connect(), (try? client.request("ping"))?.ok == true else { return false }
            admitted = client
            return true
        }
        return admitted!
    }

    @Test func connectionsPastMaxConnectionsPerUserGetOverloaded() throws {
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"counter"},"socket":{"maxConnections":3,"maxConnectionsPerUser":2}}"#)
        let first = try Self.admittedClient(daemon)
        let second = try Self.admittedClient(daemon)
        let third = try daemon.connect()
        let lines = try third.readUntilEndOfFile()
        #expect(lines.count == 1, "one Overloaded line, then EOF: \(lines)")
        let refusal = try DaemonReply(line: lines.first ?? "")
        #expect(refusal.ok == false && refusal.errorCode == "Overloaded", "\(refusal)")
        #expect(refusal["line"] == nil, "an error not tied to a request line has no line: \(refusal)")
        #expect(refusal.errorMessage?.contains("maxConnectionsPerUser") == true, "\(refusal)")
        // The admitted connections are unaffected, and a slot frees when one closes.
        #expect(try first.request(Self.increment).seq == 1)
        second.close()
        _ = try Self.admittedClient(daemon)
    }

    @Test func connectionsPastMaxConnectionsGetOverloaded() throws {
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"counter"},"socket":{"maxConnections":2,"maxConnectionsPerUser":10}}"#)
        let first = try Self.admittedClient(daemon)
        let second = try Self.admittedClient(daemon)
        let third = try daemon.connect()
        let lines = try third.readUntilEndOfFile()
        #expect(lines.count == 1, "\(lines)")
        let refusal = try DaemonReply(line: lines.first ?? "")
        #expect(refusal.errorCode == "Overloaded" && refusal["line"] == nil, "\(refusal)")
        #expect(refusal.errorMessage?.contains("maxConnections") == true, "\(refusal)")
        // A refused client's request is never read: the model stays 0.
        #expect(try first.request("model").model == 0)
        withExtendedLifetime(second) {}
    }

    @Test func maxConnectionsCountsEveryUser() throws {
        // Two root connections fill maxConnections 2: nobody, with no connection of its own, is still refused.
        let daemon = try DaemonProcess.start(
            config:
                #"{"update":{"builtin":"counter"},"socket":{"mode":"0666","maxConnections":2,"maxConnectionsPerUser":5}}"#
        )
        let first = try Self.admittedClient(daemon)
        let second = try Self.admittedClient(daemon)
        // socat sends nothing (a refused client could not write anyway) and prints what the daemon says.
        let replies = try Self.asNobody(daemon, [])
        #expect(replies.count == 1 && replies.first?.errorCode == "Overloaded", "\(replies)")
        // Both root connections must stay open until here.
        withExtendedLifetime((first, second)) {}
    }
}
