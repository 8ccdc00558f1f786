import Testing

/// `mobiusd --check` refuses malformed D-Bus sources, naming the key, and starts nothing.
@Suite("D-Bus config at --check")
struct DBusCheckTests {
    @Test(
        "malformed D-Bus sources fail --check naming the key",
        arguments: [
            (#"{"bus":"unixexec:path=/bin/sh","type":"t"}"#, "dbus[0].bus"),
            (#"{"bus":"system","type":"t","match":{"member":"a.b"}}"#, "dbus[0].match.member"),
            (#"{"bus":"system","type":"t","match":{"sender":"x"}}"#, "dbus[0].match.sender"),
            (
                #"{"bus":"system","type":"t","initialRead":{"destination":"a.b","path":"/","member":"M","signature":"y","args":[256]}}"#,
                "dbus[0].initialRead.args[0]"
            ),
            (#"{"bus":"system","type":"t","maxStringBytes":0}"#, "dbus[0].maxStringBytes"),
        ])
    func malformed(source: String, key: String) throws {
        let scratch = DaemonScratch()
        let config = #"{"update":{"builtin":"counter"},"dbus":[\#(source)]}"#
        let run = try DaemonToolRun.mobiusd(["--check", "--config", scratch.write("bad.json", config)])
        #expect(run.exit == .exited(1), "\(run.exit); stdout \(run.stdout)")
        #expect(run.stderr.contains(key + ":"), "stderr must name \(key): \(run.stderr)")
    }

    @Test(
        "limits a message can never reach within the bus's memory budget fail --check naming the key",
        arguments: [
            (#""maxValues":16777216"#, "dbus[0].maxValues", "at most 1966072"),
            (#""maxValues":2000000"#, "dbus[0].maxValues", "at most 1966072"),
            (#""maxValues":1000000,"maxStringBytes":60000000"#, "dbus[0].maxValues", "at most 222144"),
            (#""maxStringBytes":268435456"#, "dbus[0].maxStringBytes", "at most 67108576"),
        ])
    func unreachableLimits(limits: String, key: String, most: String) throws {
        let scratch = DaemonScratch()
        let config = #"{"update":{"builtin":"counter"},"dbus":[{"bus":"system","type":"t",\#(limits)}]}"#
        let run = try DaemonToolRun.mobiusd(["--check", "--config", scratch.write("bad.json", config)])
        #expect(run.exit == .exited(1), "\(run.exit); stdout \(run.stdout)")
        #expect(run.stderr.contains(key + ":") && run.stderr.contains(most), "\(run.stderr)")
    }

    @Test("the largest limits within the bus's budget pass --check")
    func largestLimits() throws {
        let scratch = DaemonScratch()
        let config = #"{"update":{"builtin":"counter"},"dbus":[{"bus":"system","type":"t","maxValues":1966072}]}"#
        let run = try DaemonToolRun.mobiusd(["--check", "--config", scratch.write("good.json", config)])
        #expect(run.exit == .exited(0), "\(run.stderr)")
    }
}
