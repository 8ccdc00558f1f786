// A JSON daemon app whose update can be wedged on purpose, for the watchdog tests: `{"type":"wedge","marker":M,
// "fifo":F}` creates the file M, then reads the FIFO F until its writer closes it. Until then the loop's pass, and
// with it the reactor thread, is stuck, as a buggy app's update would be; systemd must notice through the missing
// WATCHDOG=1. Any other event counts.
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

MobiusDaemon.main(app: .json(name: "wedge", model: 0, update: wedgeUpdate))
