// A JSON daemon app whose update can be wedged on purpose, for the watchdog tests: `{"type":"wedge","marker":M,
// "fifo":F}` creates the file M, then reads the FIFO F until its writer closes it. Until then the loop's pass, and
// with it the reactor thread, is stuck, as a buggy app's update would be; systemd must notice through the missing
// WATCHDOG=1. Any other event counts.
//
// With MOBIUSD_FIXTURE_EARLY_THREAD set, a SystemThread is started (and runs for good) before the daemon blocks its
// signals, as any of the daemon's own threads could be (the log's was, once): a SIGHUP must still reach the
// signalfd instead of ending the process on that thread.
import MobiusCore
import MobiusDaemon
import MobiusJSON
import MobiusSystem
import MobiusTestSupport

func wedgeUpdate(model: JSONValue, event: JSONValue) throws -> Next<JSONValue, JSONValue> {
    if event["type"] == "wedge", case .string(let marker)? = event["marker"], case .string(let fifo)? = event["fifo"] {
        try FileDescriptor.create(marker).close()
        _ = try FileSystem.read(fifo)
    }
    return .next(.number(JSONNumber(Int(model.int64Value ?? 0) + 1)))
}

if SystemProcess.environment("MOBIUSD_FIXTURE_EARLY_THREAD") != nil {
    try SystemThread.spawn(name: "early-worker", stackSize: 64 << 10) {
        while true { try? SystemClock.sleep(nanoseconds: 3_600_000_000_000) }
    }
}

MobiusDaemon.main(app: .json(name: "wedge", model: 0, update: wedgeUpdate))
