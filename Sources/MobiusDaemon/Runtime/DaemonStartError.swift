import MobiusCore
import MobiusJSON
import MobiusSystem

/// Why the daemon could not start serving.
struct DaemonStartError: Error, CustomStringConvertible {
    let description: String
}
