import MobiusJSON
import MobiusSystem
import MobiusTestSupport

/// A state directory that outlives the daemons started on it, for the journal tests: start, crash or stop,
/// start again, and look at the files.
final class JournalSandbox {
    let scratch = DaemonScratch()
    var stateDirectory: String { scratch.file("state") }
    var socketPath: String { scratch.file("j.sock") }
    private var runs = 0

    /// Starts `mobiusd` on the state directory with `state` and `socket` (a JSON object's members each, e.g.
    /// `"snapshotEvents":10`) in its config.
    func start(
        state: String = "", socket: String = "", update: String = #"{"builtin":"counter"}"#, launcher: [String] = [],
        extra: [String] = []
    ) throws -> DaemonProcess {
        runs += 1
        let config = scratch.write(
            "mobiusd-\(runs).json", #"{"update":\#(update),"state":{\#(state)},"socket":{\#(socket)}}"#)
        return try DaemonProcess(
            scratch: scratch,
            arguments: ["--socket", socketPath, "--state-dir", stateDirectory, "--config", config] + extra,
            socketPath: socketPath, name: "mobiusd-\(runs)", launcher: launcher)
    }

    /// A launcher that runs the daemon with its files limited to `bytes` (RLIMIT_FSIZE). Under ThreadSanitizer with
    /// TMPDIR naming no directory: TSan maps a 512 KiB file it writes there (`tsan.rodata.PID`) as shadow memory, and
    /// cut short by the limit, that file kills the process with SIGBUS before it runs.
    static func fileSizeLimit(_ bytes: Int) -> [String] {
        let limit = ["prlimit", "--fsize=\(bytes)", "--"]
        return Sanitizer.current == .thread ? ["env", "TMPDIR=/nonexistent"] + limit : limit
    }

    /// File names in the state directory, sorted.
    func files() -> [String] {
        ((try? DirectoryListing.names(in: stateDirectory)) ?? []).sorted()
    }

    /// Paths of the journal segments, oldest first.
    func segments() -> [String] {
        files().filter { $0.hasSuffix(".journal") }.map { stateDirectory + "/" + $0 }
    }

    /// The whole `log` from `since` (no follow): the first reply, the items and the end item.
    static func readLog(
        _ client: DaemonLineClient, argument: String = "{}"
    ) throws -> (reply: DaemonReply, items: [JSONValue], end: DaemonReply) {
        let reply = try client.request("log \(argument)")
        var items: [JSONValue] = []
        while true {
            let item = try client.readReply(timeout: .seconds(20))
            if item["end"] == true { return (reply, items, item) }
            items.append(item.value)
        }
    }
}
