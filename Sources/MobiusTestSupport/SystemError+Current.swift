internal import Glibc
import MobiusSystem

extension SystemError {
    /// The error for the current `errno`, after a C call made here (test support calls the C library itself: only
    /// production code goes through MobiusSystem's wrappers and their fault seam).
    static func current(_ operation: String, _ subject: String? = nil) -> SystemError {
        SystemError(errno: Errno(rawValue: Glibc.errno), operation: operation, subject: subject)
    }
}
