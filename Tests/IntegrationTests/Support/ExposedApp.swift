import MobiusJSON
import MobiusSystem
import MobiusTestSupport

/// The built-in store app exposed on a private bus (config `expose`), and the tools a user would point at it:
/// `busctl`, `gdbus call`, `gdbus monitor`.
final class ExposedApp {
    static let name = "org.mobiusd.app.Door"
    static let path = "/org/mobiusd/app/Door"
    static let model = #"{"locked":true,"count":3,"name":"front"}"#
    static let properties =
        #"{"Locked":{"path":"/locked","type":"b"},"Count":{"path":"/count","type":"u"},"Name":{"path":"/name","type":"s"}}"#

    let bus: PrivateBus
    let scratch = DaemonScratch()
    private(set) var daemon: DaemonProcess
    private let arguments: [String]
    private var monitors: [ChildProcess] = []

    /// Starts the store with `model` exposed on `bus` as `name`, with `properties` (JSON text) and `extra` top-level
    /// members (JSON text without braces, e.g. `"socket":{…}`); its state in the scratch directory.
    init(
        bus: PrivateBus, name: String = ExposedApp.name, properties: String = ExposedApp.properties, extra: String = "",
        waitForSocket: Bool = true
    ) throws {
        self.bus = bus
        let config = scratch.write(
            "door.json",
            #"{"app":"door","update":{"builtin":"store"},"model":\#(Self.model),"#
                + #""expose":{"bus":"\#(bus.address)","name":"\#(name)","path":"\#(Self.path)","#
                + #""properties":\#(properties)}\#(extra.isEmpty ? "" : "," + extra)}"#)
        arguments = ["--config", config, "--socket", scratch.file("door.sock"), "--state-dir", scratch.file("state")]
        daemon = try DaemonProcess(
            scratch: scratch, arguments: arguments, socketPath: scratch.file("door.sock"), waitForSocket: waitForSocket)
    }

    /// Kills the daemon (SIGKILL) and starts it again on the same state.
    func restartAfterKill() throws {
        daemon.send(signal: 9)
        _ = try daemon.waitForExit()
        daemon = try DaemonProcess(scratch: scratch, arguments: arguments, socketPath: scratch.file("door.sock"))
    }

    /// `status`'s `expose` member.
    func status() throws -> JSONValue {
        guard let status = try daemon.connect().request("status")["expose"] else {
            throw DaemonTestError("status has no expose member")
        }
        return status
    }

    /// Waits until the name is served (`expose.state` is `connected`).
    func waitUntilServed() throws {
        try eventually("the name is served") { try status()["state"] == "connected" }
    }

    /// `busctl --address=BUS ARGUMENTS…`.
    func busctl(_ arguments: String...) throws -> DaemonToolRun {
        try DaemonToolRun.run("busctl", ["--address=\(bus.address)"] + arguments)
    }

    /// `busctl … call NAME PATH org.mobiusd.App1 Send s EVENT`.
    func send(_ event: String) throws -> DaemonToolRun {
        try busctl("call", Self.name, Self.path, "org.mobiusd.App1", "Send", "s", event)
    }

    /// `gdbus call --address BUS -d NAME -o PATH -m METHOD ARGUMENTS…` (its errors name the D-Bus error).
    func gdbusCall(_ method: String, _ arguments: String..., path: String = ExposedApp.path) throws -> DaemonToolRun {
        try DaemonToolRun.run(
            "gdbus", ["call", "--address", bus.address, "-d", Self.name, "-o", path, "-m", method] + arguments)
    }

    /// Starts `gdbus monitor` on the name and waits until it watches; returns its output file's name.
    func monitor(_ label: String) throws -> String {
        let output = "\(label).out"
        let child = try DaemonSpawn.start(
            "gdbus", ["monitor", "--address", bus.address, "--dest", Self.name], stdoutPath: scratch.file(output),
            stderrPath: scratch.file("\(label).err"))
        monitors.append(child)
        try eventually("gdbus monitor watches") { scratch.read(output).contains("is owned by") }
        return output
    }

    deinit {
        for child in monitors {
            try? child.send(.kill)
            _ = child.termination(within: .seconds(5))
        }
    }
}
