import MobiusJSON
import MobiusSystem
import Testing

/// Examples/PowerPolicy against stand-ins for logind and UPower on a private bus (same names, paths, interfaces and
/// signatures; Examples/PowerPolicy/standins.py): the example's own config, with the bus pointed at the private one.
@Suite("Example: power policy", .serialized, .timeLimit(.scaled(minutes: 2)))
struct PowerPolicyExampleTests {
    @discardableResult
    static func standIn(_ bus: PrivateBus, _ member: String, _ arguments: String...) throws -> DaemonToolRun {
        let run = try DaemonToolRun.run(
            "dbus-send",
            [
                "--bus=\(bus.address)", "--print-reply", "--dest=org.freedesktop.UPower", "/org/mobiusd/StandIn",
                "org.mobiusd.StandIn.\(member)",
            ] + arguments)
        guard run.exit == .exited(0) else { throw DaemonTestError("dbus-send \(member): \(run.stderr)") }
        return run
    }

    @Test(
        "initial reads set the model; battery changes switch the mode, announce it and ask for a suspend; sleeps count")
    func policy() throws {
        let bus = try PrivateBus()
        _ = try bus.startScript(
            PrivateBus.packageRoot + "/Examples/PowerPolicy/standins.py", [bus.address], name: "standins")
        let (_, listened) = try bus.startPeer("listen", name: "listener", argument: "org.mobiusd.PowerPolicy")
        let example = try String(
            decoding: FileSystem.read(PrivateBus.packageRoot + "/Examples/PowerPolicy/power-policy.json"),
            as: UTF8.self)
        let config = example.replacingOccurrences(of: #""system""#, with: "\"\(bus.address)\"")
            .replacingOccurrences(of: #""suspendWhenCritical": false"#, with: #""suspendWhenCritical": true"#)
        let scratch = DaemonScratch()
        let daemon = try DaemonProcess(
            scratch: scratch,
            arguments: [
                "--socket", scratch.file("x.sock"), "--config", scratch.write("power.json", config), "--ephemeral",
            ],
            socketPath: scratch.file("x.sock"), name: "power-policy", program: DaemonSpawn.fixture("power-policy"))
        let client = try daemon.connect()
        func model() throws -> JSONValue { try client.request("model").model ?? .null }
        try eventually("both initial reads") {
            try client.dbusStatus("upower")["reads"] == 1 && client.dbusStatus("battery")["reads"] == 1
        }
        // `reads` counts reads handed to the loop; the model has them a moment later.
        try eventually("the reads applied") {
            try model()["percentage"] == 80 && model()["onBattery"] == false && model()["mode"] == "normal"
        }

        try Self.standIn(bus, "Battery", "boolean:true", "double:15")
        try eventually("saver mode") { try model()["mode"] == "saver" }
        try eventually("ModeChanged(saver) on the bus") { bus.scratch.read("listener.out").contains(#"["saver"]"#) }
        #expect(listened.hasSuffix("listener.out"))

        try Self.standIn(bus, "Battery", "boolean:true", "double:3")
        try eventually("critical mode") { try model()["mode"] == "critical" && model()["suspendRequested"] == true }
        try eventually("logind was asked to suspend, once") {
            try Self.standIn(bus, "Suspends").stdout.contains("uint32 1")
        }

        try Self.standIn(bus, "Sleep", "boolean:true")
        try eventually("sleeping") { try model()["sleeping"] == true && model()["sleeps"] == 1 }
        try Self.standIn(bus, "Sleep", "boolean:false")
        try eventually("awake") { try model()["sleeping"] == false }
        #expect(daemon.standardError.contains("power-policy: mode normal -> saver"))
        #expect(try daemon.terminate() == .exited(0))
    }
}
