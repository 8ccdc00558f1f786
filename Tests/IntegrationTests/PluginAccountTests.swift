import MobiusJSON
import MobiusSystem
import Testing

/// docs/protocol.md 2.1: `user` and `group` when the daemon runs as root: the plugin gets exactly that account's
/// uid, gid and supplementary groups (set before it starts), and that user's HOME, as the plugin itself reads them in
/// /proc/self/status (Tests/Fixtures/Plugins/probe.py). The user `mobiusd-probe` (uid 4242) and its groups exist
/// only in the daemon's own /etc/passwd and /etc/group (`PrivateAccounts`), so the test knows every group it must
/// have: its primary group 4242, and 4300 and 4301 as supplementary groups.
@Suite(
    .serialized, .timeLimit(.scaled(minutes: 2)),
    .enabled(if: SystemProcess.userID == 0 && SystemTools.canUnshareMounts, "needs root and unshare --mount"))
struct PluginAccountTests {
    static let accounts = (
        users: ["mobiusd-probe:x:4242:4242::/nonexistent/mobiusd-probe:/usr/sbin/nologin"],
        groups: [
            "mobiusd-probe:x:4242:", "mobiusd-probe-a:x:4300:mobiusd-probe",
            "mobiusd-probe-b:x:4301:nobody,mobiusd-probe",
        ]
    )

    /// What probe.py reported, run with `account` (its `user` and `group` keys).
    static func probe(_ account: [String: JSONValue]) throws -> JSONValue {
        let accounts = try PrivateAccounts(users: Self.accounts.users, groups: Self.accounts.groups)
        var entry: [String: JSONValue] = ["exec": [.string(PluginFixtures.probe)]]
        for (key, value) in account { entry[key] = value }
        let daemon = try accounts.startDaemon(
            config: PluginFixtures.config(plugins: ["probe": .object(JSONObject(entry.sorted { $0.key < $1.key }))]))
        let report = try PluginFixtures.probeReport(daemon)
        try daemon.terminate()
        return report
    }

    /// A `/proc/self/status` id line's four values (real, effective, saved, file system) as numbers.
    static func ids(_ report: JSONValue, _ key: String) -> [UInt32] {
        (report[key]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap { UInt32($0) } }
    }

    @Test func userSetsUidGidAndExactlyThatUsersGroups() throws {
        let report = try Self.probe(["user": "mobiusd-probe"])
        #expect(Self.ids(report, "uid") == [4242, 4242, 4242, 4242], "\(report)")
        #expect(Self.ids(report, "gid") == [4242, 4242, 4242, 4242], "\(report)")
        #expect(Self.ids(report, "groups").sorted() == [4242, 4300, 4301], "no group of root's: \(report)")
        #expect(report["environ"]?.arrayValue?.contains("HOME=/nonexistent/mobiusd-probe") == true, "\(report)")
    }

    /// `group` replaces the primary group; the supplementary groups are the ones the group database gives the user
    /// with that primary group (its memberships, not its passwd group).
    @Test func userAndGroupSetThatPrimaryGroup() throws {
        let report = try Self.probe(["user": "mobiusd-probe", "group": "mobiusd-probe-b"])
        #expect(Self.ids(report, "uid") == [4242, 4242, 4242, 4242], "\(report)")
        #expect(Self.ids(report, "gid") == [4301, 4301, 4301, 4301], "\(report)")
        #expect(Self.ids(report, "groups").sorted() == [4300, 4301], "\(report)")
    }

    /// `group` alone keeps the daemon's uid (root) and sets only the group: the plugin is still root.
    @Test func groupAloneChangesOnlyTheGroups() throws {
        let report = try Self.probe(["group": "4300"])
        #expect(Self.ids(report, "uid") == [0, 0, 0, 0], "\(report)")
        #expect(Self.ids(report, "gid") == [4300, 4300, 4300, 4300], "\(report)")
        #expect(Self.ids(report, "groups") == [4300], "\(report)")
    }

    /// A system account, as an operator would name one: nobody and nogroup.
    @Test func systemAccountByName() throws {
        let report = try Self.probe(["user": "nobody", "group": "nogroup"])
        #expect(Self.ids(report, "uid") == [65534, 65534, 65534, 65534], "\(report)")
        #expect(Self.ids(report, "gid") == [65534, 65534, 65534, 65534], "\(report)")
        // nogroup and the private database's mobiusd-probe-b, which lists nobody.
        #expect(Self.ids(report, "groups").sorted() == [4301, 65534], "\(report)")
        #expect(report["environ"]?.arrayValue?.contains("HOME=/nonexistent") == true, "\(report)")
    }

    /// A root daemon whose capabilities do not let it switch to the account, or signal the plugin there to end it
    /// (a unit's `CapabilityBoundingSet=` without them), refuses the config at `--check` and at start-up instead of
    /// starting a plugin it could never stop.
    @Test(arguments: [("-kill", "CAP_KILL"), ("-setuid", "CAP_SETUID"), ("-setgid", "CAP_SETGID")])
    func missingCapabilitiesRefuseTheAccount(drop: String, named: String) throws {
        let scratch = DaemonScratch()
        let entry: JSONValue = ["exec": [.string(PluginFixtures.probe)], "user": "nobody"]
        let config = scratch.write("mobiusd.json", PluginFixtures.config(plugins: ["probe": entry]))
        let run = try DaemonToolRun.run(
            "setpriv", ["--bounding-set=\(drop)", "--", DaemonSpawn.mobiusdPath, "--check", "--config", config])
        #expect(run.exit == .exited(1), "\(run.exit): \(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains("plugins.probe.user") && run.stderr.contains(named), "\(run.stderr)")
    }
}
