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
}
