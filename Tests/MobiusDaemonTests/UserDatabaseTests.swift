import MobiusSystem
import Testing

/// The user and group lookups (`access` rules, the socket's group, plugin accounts, "did you mean"), against this
/// machine's databases: root is user 0 and group 0 everywhere the daemon runs.
@Suite("UserDatabase and UserAccount: lookups in the user and group databases")
struct UserDatabaseTests {
    static let missing = "mobiusd-no-such-name"

    @Test("names resolve to their ids, and a name nobody has to nil")
    func namesToIDs() {
        #expect(UserDatabase.userID(named: "root") == 0)
        #expect(UserDatabase.groupID(named: "root") == 0)
        #expect(UserDatabase.userID(named: Self.missing) == nil)
        #expect(UserDatabase.groupID(named: Self.missing) == nil)
    }

    @Test("a user's groups include its primary group; an unknown uid has only the primary group given")
    func groupsOfAUser() {
        #expect(UserDatabase.groups(ofUser: 0, primaryGroup: 0).contains(0))
        #expect(UserDatabase.groups(ofUser: 3_999_999_999, primaryGroup: 77) == [77])
    }

    @Test("an account is found by name and by number, with the strings its entry points to")
    func accounts() throws {
        let root = try #require(UserAccount.lookUp("root"))
        #expect(root.name == "root" && root.uid == 0 && root.gid == 0)
        #expect(root.home.hasPrefix("/"))
        #expect(UserAccount.lookUp("0") == root)
        #expect(UserAccount.lookUp(Self.missing) == nil)
    }

    @Test("every name is listed, up to the limit")
    func allNames() {
        #expect(UserDatabase.allUserNames().contains("root"))
        #expect(UserDatabase.allGroupNames().contains("root"))
        #expect(UserDatabase.allUserNames(limit: 1).count == 1)
        #expect(UserDatabase.allGroupNames(limit: 1).count == 1)
    }
}
