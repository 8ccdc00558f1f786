import MobiusPlugin
import MobiusSystem

/// Makes the sound: the configured command, else `canberra-gtk-play` (the desktop's bell sound), else `paplay`
/// with the sound file, else a BEL character written to the bell path. The first that works wins.
struct BeepRinger: Sendable {
    let options: BeepOptions

    /// Rings once; returns how (`command`, `canberra`, `paplay`, `bell`) or `none` when nothing could ring.
    func ring() async -> String {
        if let command = options.command {
            if await Self.run(command) { return "command" }
            PluginLog.warning("options.command \(command[0]) failed; trying the other ways")
        }
        if await Self.run(["canberra-gtk-play", "--id=bell", "--description=mobiusd"]) { return "canberra" }
        if FileSystem.exists(options.sound), await Self.run(["paplay", options.sound]) { return "paplay" }
        if writeBell() { return "bell" }
        return "none"
    }

    /// Appends BEL (0x07) to the bell path; never creates it.
    private func writeBell() -> Bool {
        guard let fd = try? FileDescriptor.openForAppending(options.bell) else { return false }
        defer { fd.close() }
        return (try? fd.writeAll([0x07])) != nil
    }

    /// Runs `argv` to its end without blocking a task thread: a thread of its own waits for it. Cancelling the
    /// task (the host's cancel, or its timeout) kills the player.
    static func run(_ argv: [String]) async -> Bool {
        guard let child = try? ChildProcess.spawn(argv) else { return false }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
                do {
                    try SystemThread.spawn(name: "beep-wait", stackSize: 64 << 10) {
                        done.resume(returning: (try? child.waitForExit()) == .exited(0))
                    }
                } catch {
                    try? child.send(.kill)
                    done.resume(returning: (try? child.waitForExit()) == .exited(0))
                }
            }
        } onCancel: {
            try? child.send(.kill)
        }
    }
}
